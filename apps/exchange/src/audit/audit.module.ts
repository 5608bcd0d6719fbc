import { Module } from '@nestjs/common';
import { AuditCollector } from './audit-collector';
import { AuditLogStore } from './audit-log.store';
import { AuditController } from './audit.controller';

@Module({
  controllers: [AuditController],
  providers: [AuditLogStore, AuditCollector],
})
export class AuditModule {}
