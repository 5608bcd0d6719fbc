import { ApiProperty } from '@nestjs/swagger';

class OrgRequestSubjects {
  @ApiProperty({ example: 'careen.requests.acme.maintenance.start' }) start!: string;
  @ApiProperty({ example: 'careen.requests.acme.maintenance.complete' }) complete!: string;
}

/** A service account key's NATS user: what it may publish, where its replies come, until when. */
export class BusCredentialsResponse {
  @ApiProperty({ description: 'a NATS creds file (the user JWT and its seed): shown once' })
  credentials!: string;
  @ApiProperty({ description: "the NATS user's public key" }) user!: string;
  @ApiProperty({ description: 'the inbox prefix to connect with (`inboxPrefix`): replies come only there' })
  inboxPrefix!: string;
  @ApiProperty({
    type: OrgRequestSubjects,
    description: "the org's request subjects the user may publish on",
  })
  subjects!: OrgRequestSubjects;
  @ApiProperty({ type: String, format: 'date-time', description: 'the server refuses the user from then on' })
  expiresAt!: string;
}
