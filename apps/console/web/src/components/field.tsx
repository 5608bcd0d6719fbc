/**
 * A form field with its label and, under it, the problems a service's refusal names for the
 * field of the same `name` (its `details.fields`), tied to the input for screen readers.
 */
import { useId, type InputHTMLAttributes } from 'react';
import type { ApiProblem } from '../api/problem';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  name: string;
  hint?: string;
  refusal?: ApiProblem;
}

export function Field({ label, hint, refusal, ...input }: FieldProps) {
  const id = useId();
  const problems = refusal?.problemsOf(input.name) ?? [];
  const described = [hint ? `${id}-hint` : '', problems.length > 0 ? `${id}-problems` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className={`field${problems.length > 0 ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        aria-invalid={problems.length > 0}
        aria-describedby={described || undefined}
        {...input}
      />
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {problems.length > 0 && (
        <ul id={`${id}-problems`} className="field-problems">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
