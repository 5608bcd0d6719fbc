/**
 * A form field with its label and, under it, the problems the service found with the value
 * (from the refusal's `details.fields`), tied to the input for screen readers.
 */
import { useId, type InputHTMLAttributes } from 'react';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  hint?: string;
  problems?: string[];
}

export function Field({ label, hint, problems = [], ...input }: FieldProps) {
  const id = useId();
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
