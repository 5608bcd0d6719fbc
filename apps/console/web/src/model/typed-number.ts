/**
 * A number as typed into a form, or the text itself when it is none, so that the service
 * names what is wrong with it next to the field instead of receiving null.
 */
export function typedNumber(typed: string): number {
  const value = Number(typed.trim());
  return (Number.isFinite(value) ? value : typed) as number;
}
