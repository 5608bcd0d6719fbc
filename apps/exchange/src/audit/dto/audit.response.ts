import { AUDIT_OUTCOMES, type AuditOutcome } from '@careen/contracts';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';

export class AuditRecordResponse {
  @ApiProperty({ type: 'integer', description: "its place in the org's trail, from 1" }) seq!: number;
  @ApiProperty() org!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'when the change was made' }) at!: string;
  @ApiProperty({
    description: '`org/user`, `org/node`, `org/sa:account`, `org/project:name` or `careen:<service>`',
  })
  actor!: string;
  @ApiProperty({ description: '`user`, `node`, `service`, `project` or `careen`' }) actorKind!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'how the actor proved who it is: `password`, `token`, `sso:<issuer>` (a token of a single sign-on), `key:<id>`, `node-token`, `capability`',
  })
  via!: string | null;
  @ApiProperty({ description: 'the service that made the change' }) service!: string;
  @ApiProperty({ example: 'managementPolicy.paused' }) action!: string;
  @ApiProperty({ example: 'managementPolicy/web' }) target!: string;
  @ApiProperty({ enum: AUDIT_OUTCOMES }) outcome!: AuditOutcome;
  @ApiProperty({ type: String, nullable: true, description: "the request's source address" }) source!:
    string | null;
  @ApiProperty({ type: String, nullable: true }) requestId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the W3C trace id' }) traceId!: string | null;
  @ApiProperty({ description: 'the CloudEvents id of the event it records' }) eventId!: string;
  @ApiProperty({ description: 'the hash of the record before it' }) prevHash!: string;
  @ApiProperty({ description: 'SHA-256 over its fields and prevHash' }) hash!: string;
}

export class AuditListResponse {
  @ApiProperty({ type: [AuditRecordResponse] }) items!: AuditRecordResponse[];
  @ApiProperty({ type: 'integer', description: 'records matching the filter' }) total!: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'pass as `after` for the next page; null at the end',
  })
  next!: number | null;
}

class ChainPoint {
  @ApiProperty({ type: 'integer' }) seq!: number;
  @ApiProperty() hash!: string;
}

class ChainBreakResponse {
  @ApiProperty({ type: 'integer' }) seq!: number;
  @ApiProperty() eventId!: string;
  @ApiProperty() problem!: string;
}

@ApiExtraModels(ChainBreakResponse)
export class AuditVerificationResponse {
  @ApiProperty() org!: string;
  @ApiProperty({ description: 'true when every record from the anchor to the head chains' })
  verified!: boolean;
  @ApiProperty({ type: 'integer', description: 'records that chained before the first break, or all' })
  checked!: number;
  @ApiProperty({
    type: ChainPoint,
    description: 'where verification starts: the last pruned record, or seq 0',
  })
  anchor!: ChainPoint;
  @ApiProperty({ type: ChainPoint, description: 'the last record appended' }) head!: ChainPoint;
  /** `nullable` beside a `$ref` does not reach into it (OpenAPI 3.0.3): null is the other choice. */
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(ChainBreakResponse) }, { type: 'object', nullable: true, enum: [null] }],
    description: 'the first record that does not chain; null when every one does',
  })
  broken!: ChainBreakResponse | null;
}
