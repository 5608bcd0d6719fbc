import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, IsUrl, Matches, MaxLength } from 'class-validator';
import { SEMVER } from '../../rollouts/dto/start-rollout.dto';
import { INSTALL_STRATEGIES } from '../upgrade-states';

/** `POST /v1/upgrades`: Trove's upgrade notification, for one node. */
export class RequestUpgradeDto {
  @ApiProperty({ example: 'edge-0001' })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `node_id must be a node id: ${IDENTIFIER_RULE}` })
  node_id!: string;

  @ApiProperty({ example: '2.31.0' })
  @IsString()
  @Matches(SEMVER, { message: 'version must be a semantic version (1.2.3)' })
  version!: string;

  @ApiProperty({ enum: INSTALL_STRATEGIES, description: 'the install strategy the agent uses' })
  @IsIn(INSTALL_STRATEGIES, { message: `strategy must be one of: ${INSTALL_STRATEGIES.join(', ')}` })
  strategy!: string;

  @ApiPropertyOptional({
    example: 'https://mirror.example.net/careen-agent-2.31.0.tar.gz',
    description:
      "a URL the agent fetches the package from instead of the exchange's copy; checked against the package's sha256 all the same",
  })
  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { message: 'location must be an http(s) URL' },
  )
  @MaxLength(2048)
  location?: string;

  @ApiPropertyOptional({
    description:
      'ask for a version below the one the node runs (a rollback); without it such a request is refused with 409. Its policy carries the flag, so the agent installs the lower version, and the attempt ends success once the node reports it',
  })
  @IsOptional()
  @IsBoolean({ message: 'allowDowngrade must be true or false' })
  allowDowngrade?: boolean;

  @ApiPropertyOptional({ description: "the node's org (hub admins); default the caller's" })
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `org must be ${IDENTIFIER_RULE}` })
  org?: string;
}
