import { Global, Module } from '@nestjs/common';
import { ExchangeMirror } from './exchange-mirror';

/** The agbot's copy of the exchange, readable by every feature of the agbot. */
@Global()
@Module({ providers: [ExchangeMirror], exports: [ExchangeMirror] })
export class MirrorModule {}
