import { Module } from '@nestjs/common';
import { ChangeRecorder } from './change-recorder';

/** The one ChangeRecorder every feature that mutates the exchange records its changes through. */
@Module({
  providers: [ChangeRecorder],
  exports: [ChangeRecorder],
})
export class ChangeRecordingModule {}
