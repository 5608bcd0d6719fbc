/**
 * Which projects' constraints a caller may see: a key limited to projects only theirs (asking
 * for another is refused), anyone else the org's, or the one project asked for.
 */
import { assertProject, type Principal } from '@careen/auth';

export function visibleProjects(actor: Principal, asked: string | undefined): readonly string[] | undefined {
  if (asked !== undefined) {
    assertProject(actor, asked);
    return [asked];
  }
  return actor.kind === 'service' ? actor.projects : undefined;
}
