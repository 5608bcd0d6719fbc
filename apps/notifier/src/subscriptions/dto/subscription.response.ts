import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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

/** A signing secret as shown: never the secret itself, only how long it still signs. */
export class SubscriptionSecretResponse {
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when it stops signing; null for the current one',
  })
  expires_at!: string | null;
}

/** Where a `nats` subscriber reads and replies, and when its credentials expire. */
export class SubscriptionNatsResponse {
  @ApiProperty({ example: 'CAREEN_MAINT' }) stream!: string;
  @ApiProperty({ description: "the subscriber's own durable consumer" }) durable!: string;
  @ApiProperty({ description: "the project's events" }) subject!: string;
  @ApiProperty({ description: '`<session_id>` stands for the session a reply answers' })
  reply_subject!: string;
  @ApiProperty({ description: 'what the user may publish replies to' }) reply_permission!: string;
  @ApiProperty() inbox_prefix!: string;
  @ApiProperty({ type: String, nullable: true, description: "the NATS user's public key" })
  user!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  credentials_expire_at!: string | null;
}

/** A subscription as the routes show it, without its secrets. */
export class SubscriptionResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() org!: string;
  @ApiProperty({ enum: SUBSCRIPTION_SCOPES }) scope!: SubscriptionScope;
  @ApiProperty({ type: String, nullable: true, description: '`project` scope: the project' })
  project_id!: string | null;
  @ApiProperty({ type: [String], description: '`admin` scope: the hosts; empty for every host' })
  hosts!: string[];
  @ApiProperty({ type: [String], description: 'the event states delivered; empty for all' })
  states!: string[];
  @ApiProperty({ enum: SUBSCRIPTION_KINDS }) kind!: SubscriptionKind;
  @ApiProperty({ type: String, nullable: true, description: '`webhook` kind: where events are posted' })
  url!: string | null;
  @ApiProperty({
    enum: [...WEBHOOK_FORMATS, null],
    nullable: true,
    description: '`webhook` kind: the body posted',
  })
  format!: WebhookFormat | null;
  @ApiProperty({ enum: EVENT_NAMES, description: "the guideline's event names or Fenix's" })
  event_names!: EventNames;
  @ApiProperty({ description: 'who made it' }) created_by!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
  @ApiProperty({
    type: [SubscriptionSecretResponse],
    description: '`webhook` kind: the secrets that still sign; empty for other kinds',
  })
  secrets!: SubscriptionSecretResponse[];
  @ApiPropertyOptional({ type: SubscriptionNatsResponse, description: '`nats` kind only' })
  nats?: SubscriptionNatsResponse;
}

/** A new subscription: a webhook's signing secret, or a NATS subscriber's credentials, shown once. */
export class SubscriptionCreatedResponse extends SubscriptionResponse {
  @ApiPropertyOptional({ description: '`webhook` kind: the signing secret', example: 'whsec_…' })
  secret?: string;
  @ApiPropertyOptional({ description: '`nats` kind: a NATS creds file (the user JWT and its seed)' })
  credentials?: string;
}

/** A webhook subscription with its new signing secret, shown once. */
export class SubscriptionRotatedResponse extends SubscriptionResponse {
  @ApiProperty({ description: 'the new signing secret', example: 'whsec_…' })
  secret!: string;
}

/** A nats subscription with its new credentials, shown once. */
export class SubscriptionCredentialsResponse extends SubscriptionResponse {
  @ApiProperty({ description: 'a NATS creds file (the user JWT and its seed)' })
  credentials!: string;
}

export class SubscriptionListResponse {
  @ApiProperty({ type: [SubscriptionResponse] }) items!: SubscriptionResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
