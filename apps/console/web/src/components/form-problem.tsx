/**
 * A form's refusal above the form: the service's message, or, when it named fields this form
 * shows (their problems are next to them), a pointer to those and the message for the rest.
 */
import { isPartOf, type ApiProblem } from '../api/problem';

export function FormProblem({ problem, fields }: { problem: ApiProblem | undefined; fields: string[] }) {
  if (!problem) return null;
  const onForm = (refused: string) => fields.some((field) => isPartOf(refused, field));
  const shown = problem.fields.filter((entry) => onForm(entry.field));
  const others = problem.fields.filter((entry) => !onForm(entry.field));
  return (
    <div className="notice notice-error" role="alert">
      {shown.length === 0
        ? problem.message
        : `Correct the field${shown.length === 1 ? '' : 's'} marked below.`}
      {shown.length > 0 && others.length > 0 && (
        <ul>
          {others.map((entry) => (
            <li key={entry.field}>
              {entry.field}: {entry.problems.join(', ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
