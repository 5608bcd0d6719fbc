/** An option's value as a whole number within bounds, or commander's refusal naming them. */
import { InvalidArgumentError } from 'commander';

export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max)
      throw new InvalidArgumentError(`a whole number from ${min} to ${max}`);
    return parsed;
  };
}
