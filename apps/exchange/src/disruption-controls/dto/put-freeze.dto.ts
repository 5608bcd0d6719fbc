import { ApiProperty } from '@nestjs/swagger';

import { IsISO8601, Matches, registerDecorator, type ValidationArguments } from 'class-validator';
import { DisruptionControlDto } from './disruption-control.dto';

/** An instant's offset: without one, the time would be read in the exchange's own zone. */
export const WITH_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/;

/** `PUT …/freezes/{name}`: no disruption starts on a covered node from `from` until `until`. */
export class PutFreezeDto extends DisruptionControlDto {
  @ApiProperty({
    example: '2026-12-20T00:00:00+01:00',
    description: 'ISO 8601 instant with its offset (Z or ±hh:mm)',
  })
  @IsISO8601({ strict: true })
  @Matches(WITH_OFFSET, { message: 'from must end with its offset, Z or ±hh:mm' })
  from!: string;

  @ApiProperty({ example: '2027-01-03T00:00:00+01:00', description: 'ISO 8601 instant, after from' })
  @IsISO8601({ strict: true })
  @Matches(WITH_OFFSET, { message: 'until must end with its offset, Z or ±hh:mm' })
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
