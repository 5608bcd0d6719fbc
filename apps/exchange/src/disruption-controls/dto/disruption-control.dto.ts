import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  registerDecorator,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import { DisruptionSelectorDto } from './disruption-selector.dto';

/** What every control's body takes besides its own settings: words for people, and its nodes. */
export class DisruptionControlDto {
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
}

/**
 * Checks the body as a whole with one of the disruption library's rules (the same the agbot
 * reads controls with), reported on the property it decorates.
 */
export function IsValidBy(name: string, problemOf: (body: never) => string | undefined): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          problemOf(args.object as never) === undefined,
        defaultMessage: (args: ValidationArguments) => problemOf(args.object as never) ?? '',
      },
    });
}
