import { BadRequestException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, Max, Min, registerDecorator } from 'class-validator';
import { CompiledCheck, checkCompiled } from '@careen/contracts';
import { createValidationPipe } from './validation.pipe';

let classValidatorRuns = 0;

/** Counts how often class-validator judges the DTO; accepts everything itself. */
function Counted(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'counted',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: { validate: () => ++classValidatorRuns > 0 },
    });
}

@CompiledCheck({
  type: 'object',
  additionalProperties: false,
  properties: { wait: { type: 'integer', finite: true, minimum: 0, maximum: 120 } },
})
class WaitQuery {
  @Counted()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(120)
  wait = 5;
}

class Unchecked {
  @Counted()
  @IsInt()
  count!: number;
}

describe('compiled checks in the validation pipe', () => {
  const pipe = createValidationPipe();
  const asQuery = { type: 'query', metatype: WaitQuery } as const;

  beforeEach(() => {
    classValidatorRuns = 0;
  });

  it('takes what the compiled check accepts as the DTO, without class-validator', async () => {
    const query = { wait: '30' };
    const dto = await pipe.transform(query, asQuery);
    expect(dto).toBeInstanceOf(WaitQuery);
    expect(dto).toEqual({ wait: 30 });
    expect(await pipe.transform({}, asQuery)).toEqual({ wait: 5 });
    expect(classValidatorRuns).toBe(0);
    // The query as it came is left to class-validator, had the check refused it.
    expect(query).toEqual({ wait: '30' });
  });

  it('hands everything else to class-validator, which names the problem', async () => {
    for (const [query, problem] of [
      [{ wait: '121' }, 'wait: wait must not be greater than 120'],
      [{ wait: 'Infinity' }, 'wait must be an integer number'],
      [{ wait: '1e400' }, 'wait must be an integer number'],
      [{ other: '1' }, 'other: property other should not exist'],
    ] as const) {
      const refusal = await pipe.transform(query, asQuery).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(BadRequestException);
      expect((refusal as BadRequestException).message).toContain(problem);
    }
    expect(classValidatorRuns).toBe(4);
  });

  it('leaves a DTO without a compiled check to class-validator', async () => {
    expect(checkCompiled(Unchecked, 'body', { count: 1 })).toBeUndefined();
    expect(await pipe.transform({ count: 1 }, { type: 'body', metatype: Unchecked })).toEqual({ count: 1 });
    expect(classValidatorRuns).toBe(1);
  });
});
