import { NeedsRole, OrgScoped } from '@careen/auth';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditLogStore } from './audit-log.store';
import { AuditQuery } from './dto/audit.query';
import { AuditListResponse, AuditVerificationResponse } from './dto/audit.response';

/** An org's audit trail: for its admins (and hub admins), never for a key. */
@ApiTags('audit')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@NeedsRole('orgAdmin')
@Controller('v1/orgs/:org/audit')
export class AuditController {
  constructor(private readonly store: AuditLogStore) {}

  @Get()
  @ApiOperation({ summary: "A page of the org's audit trail, oldest (or newest) first, filtered" })
  @ApiOkResponse({ type: AuditListResponse })
  list(@Param('org') org: string, @Query() query: AuditQuery): Promise<AuditListResponse> {
    return this.store.list(org, {
      since: query.since ? new Date(query.since) : undefined,
      until: query.until ? new Date(query.until) : undefined,
      actor: query.actor,
      target: query.target,
      action: query.action,
      order: query.order,
      after: query.after,
      limit: query.limit ?? 100,
    });
  }

  @Get('verify')
  @ApiOperation({ summary: "Recompute the org's hash chain and say where it first breaks" })
  @ApiOkResponse({ type: AuditVerificationResponse })
  async verify(@Param('org') org: string): Promise<AuditVerificationResponse> {
    const verification = await this.store.verify(org);
    return { ...verification, verified: verification.broken === null };
  }
}
