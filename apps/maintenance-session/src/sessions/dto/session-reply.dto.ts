import { MaintenanceReplyPayload } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** The query of a project's URLs: the capability the event's `reply_url` carries. */
export class CapabilityQuery {
  @ApiPropertyOptional({ description: "the capability from the event's reply_url / instance_ids URL" })
  @IsOptional()
  @IsString()
  capability?: string;
}

/** A project's reply by `PUT reply_url`: the same body as on the reply subject. */
export class SessionReplyDto extends MaintenanceReplyPayload {}
