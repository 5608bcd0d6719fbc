import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import { DisruptionSelectorDto } from './disruption-selector.dto';

/** `PUT …/freezes/{name}`: no disruption starts on a covered node from `from` until `until`. */
export class PutFreezeDto {
  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({
    type: DisruptionSelectorDto,
    description: 'which nodes; every node of the org when omitted',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DisruptionSelectorDto)
  selector?: DisruptionSelectorDto;

  @ApiProperty({ example: '2026-12-20T00:00:00+01:00', description: 'ISO 8601 instant with its offset' })
  @IsISO8601({ strict: true })
  from!: string;

  @ApiProperty({ example: '2027-01-03T00:00:00+01:00', description: 'ISO 8601 instant, after from' })
  @IsISO8601({ strict: true })
  @IsAfterFrom()
  until!: string;
}

function IsAfterFrom(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAfterFrom',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (until: unknown, args: ValidationArguments) =>
          Date.parse(String(until)) > Date.parse((args.object as PutFreezeDto).from),
        defaultMessage: () => 'until must be later than from',
      },
    });
}
