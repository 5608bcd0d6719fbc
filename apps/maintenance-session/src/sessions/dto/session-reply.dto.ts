import {
  INSTANCE_ACTIONS,
  MaintenanceReplyPayload,
  parseReplyState,
  REPLIED_STATES,
} from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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

/** Every reply state parseReplyState takes: `ACK_<state>`, `NACK_<state>` and Fenix's aliases. */
const REPLY_STATES = [
  ...REPLIED_STATES.flatMap((state) => [`ACK_${state}`, `NACK_${state}`]),
  'ACK_SCALE_IN',
  'NACK_SCALE_IN',
  'MAINTENANCE_COMPLETE_ACK',
].filter((state) => parseReplyState(state) !== undefined);

// The contracts know nothing of OpenAPI, so the inherited fields are documented from here.
const documented: Record<keyof SessionReplyDto, PropertyDecorator> = {
  state: ApiProperty({ enum: REPLY_STATES, example: 'ACK_PREPARE_MAINTENANCE' }),
  instance_actions: ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...INSTANCE_ACTIONS] },
    description: 'by instance id, what to do with it (PREPARE_MAINTENANCE and PLANNED_MAINTENANCE only)',
    example: { 'vnf-a-1': 'MIGRATE' },
  }),
  instance_action: ApiPropertyOptional({
    enum: [...INSTANCE_ACTIONS],
    description: "Fenix's form: one action for every instance the event named (not with instance_actions)",
  }),
  session_id: ApiPropertyOptional({ description: "Fenix clients send it: must be this session's id" }),
  instance_ids: ApiPropertyOptional({ type: [String], description: 'Fenix clients send it; not read' }),
};
for (const [field, decorate] of Object.entries(documented)) decorate(SessionReplyDto.prototype, field);
