import { type AlertScope, WEEKDAYS, type WeekdayName, type UnavailableLimit } from '@careen/disruption';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DisruptionSelectorDto, UNAVAILABLE_LIMIT_SCHEMA } from './disruption-selector.dto';

/** What every control answers besides its own settings. */
class DisruptionControlResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ type: DisruptionSelectorDto, description: 'the criteria given; {} covers every node' })
  selector!: DisruptionSelectorDto;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class WindowResponse extends DisruptionControlResponse {
  @ApiPropertyOptional({ enum: WEEKDAYS, isArray: true }) days?: WeekdayName[];
  @ApiPropertyOptional() start?: string;
  @ApiPropertyOptional() rrule?: string;
  @ApiProperty({ type: 'integer' }) durationMinutes!: number;
  @ApiProperty({ type: 'integer' }) cutoffMinutes!: number;
  @ApiProperty() timeZone!: string;
}

export class FreezeResponse extends DisruptionControlResponse {
  @ApiProperty({ type: String, format: 'date-time' }) from!: string;
  @ApiProperty({ type: String, format: 'date-time' }) until!: string;
}

export class BudgetResponse extends DisruptionControlResponse {
  @ApiProperty(UNAVAILABLE_LIMIT_SCHEMA) maxUnavailable!: UnavailableLimit;
}

export class GateResponse extends DisruptionControlResponse {
  @ApiProperty() prometheusUrl!: string;
  @ApiProperty({ type: [String] }) matchers!: string[];
  @ApiProperty({ type: String, description: 'all, node, haGroup or label:<node label key>' })
  scope!: AlertScope;
  @ApiPropertyOptional() alertLabel?: string;
  @ApiProperty({ enum: ['closed', 'open'] }) onUnavailable!: 'closed' | 'open';
  @ApiProperty({ type: 'integer' }) evaluationSeconds!: number;
  @ApiPropertyOptional({ type: 'integer' }) soakSeconds?: number;
}

export class GateListResponse {
  @ApiProperty({ type: [GateResponse] }) items!: GateResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class WindowListResponse {
  @ApiProperty({ type: [WindowResponse] }) items!: WindowResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class FreezeListResponse {
  @ApiProperty({ type: [FreezeResponse] }) items!: FreezeResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class BudgetListResponse {
  @ApiProperty({ type: [BudgetResponse] }) items!: BudgetResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
