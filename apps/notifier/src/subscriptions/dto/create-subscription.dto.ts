import { ADMIN_STATES, IDENTIFIER_PATTERN, IDENTIFIER_RULE, PROJECT_STATES } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import {
  EVENT_NAMES,
  type EventNames,
  SUBSCRIPTION_KINDS,
  SUBSCRIPTION_SCOPES,
  type SubscriptionKind,
  type SubscriptionScope,
  WEBHOOK_FORMATS,
  type WebhookFormat,
} from '../subscription';

const STATES = [...new Set([...PROJECT_STATES, ...ADMIN_STATES])];

export class CreateSubscriptionDto {
  @ApiPropertyOptional({ description: "the org (hub admins); default the caller's" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org?: string;

  @ApiProperty({
    enum: SUBSCRIPTION_SCOPES,
    description: "one project, all the org's projects, or admin events",
  })
  @IsIn(SUBSCRIPTION_SCOPES)
  scope!: SubscriptionScope;

  @ApiPropertyOptional({ description: '`project` scope: the project', example: 'shop' })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `project_id must be ${IDENTIFIER_RULE}` })
  project_id?: string;

  @ApiPropertyOptional({ type: [String], description: '`admin` scope: the hosts (default every host)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @Matches(IDENTIFIER_PATTERN, { each: true, message: `each host must be ${IDENTIFIER_RULE}` })
  hosts?: string[];

  @ApiPropertyOptional({ type: [String], enum: STATES, description: 'the states delivered (default all)' })
  @IsOptional()
  @IsArray()
  @IsIn(STATES, { each: true })
  states?: string[];

  @ApiProperty({
    enum: SUBSCRIPTION_KINDS,
    description: 'webhook: posted to url; nats: read from a consumer of its own; sse: GET /v1/stream',
  })
  @IsIn(SUBSCRIPTION_KINDS)
  kind!: SubscriptionKind;

  @ApiPropertyOptional({
    description: '`webhook` kind: where events are posted',
    example: 'https://vnfm.example/careen',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS, description: '`webhook` kind: the body posted' })
  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: WebhookFormat;

  @ApiPropertyOptional({
    enum: EVENT_NAMES,
    default: 'guideline',
    description: "`webhook` kind: the guideline's event names (DOWN_SCALE) or Fenix's (SCALE_IN)",
  })
  @IsOptional()
  @IsIn(EVENT_NAMES)
  event_names?: EventNames;
}
