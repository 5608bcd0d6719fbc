import { type AlertScope, alertGateProblem } from '@careen/disruption';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { DisruptionControlDto, IsValidBy } from './disruption-control.dto';

/**
 * `PUT …/gates/{name}`: while an alert firing at `prometheusUrl` matches every matcher, nothing
 * new starts on the covered nodes in the alert's scope.
 */
export class PutGateDto extends DisruptionControlDto {
  @ApiProperty({
    example: 'http://prometheus.monitoring:9090',
    description: "Prometheus's base URL; its /api/v1/alerts is asked",
  })
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'prometheusUrl must be an http(s) URL' },
  )
  @MaxLength(2000)
  prometheusUrl!: string;

  @ApiProperty({
    type: [String],
    example: ['alertname="NodeDown"', 'severity=~"page|critical"'],
    description: 'label matchers an alert must all satisfy',
  })
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  @IsValidBy('isGate', alertGateProblem)
  matchers!: string[];

  @ApiProperty({
    type: String,
    example: 'node',
    description:
      'which covered nodes a matching alert closes it for: all, node, haGroup, or label:<node label key> — those its alertLabel names',
  })
  @IsString()
  @MaxLength(200)
  scope!: AlertScope;

  @ApiPropertyOptional({
    example: 'instance',
    description:
      'the alert label naming the node, group or label value; default node, ha_group or the label key',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  alertLabel?: string;

  @ApiPropertyOptional({
    enum: ['closed', 'open'],
    description: 'while Prometheus cannot be asked; default closed',
  })
  @IsOptional()
  @IsIn(['closed', 'open'])
  onUnavailable?: 'closed' | 'open';

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 300,
    description: 'how often Prometheus is asked, in seconds; default 15',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(300)
  evaluationSeconds?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 86_400,
    description:
      'the soak after each step on a covered node: the next step in the same scope starts only after this many seconds of quiet, and an alert of the gate firing for the node meanwhile fails the step (halts its group)',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400)
  soakSeconds?: number;
}
