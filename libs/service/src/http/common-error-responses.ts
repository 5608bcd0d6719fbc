/**
 * Documents, on every operation of a service's OpenAPI document, the error answers that come
 * from the parts every route shares rather than from the route itself — the validation pipe
 * (400), the size limit on bodies (413), the login guard (401, 403), a path naming something
 * that does not exist (404), a database that cannot be reached (503) — and gives every error
 * answer, these and the routes' own, the one error body (`ErrorBody`) they all have.
 */
import { type OpenAPIObject } from '@nestjs/swagger';
import { ERROR_BODY_SCHEMA } from './error-body';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Responses = Operation['responses'];

const ERROR_BODY = '#/components/schemas/ErrorBody';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function documentCommonErrors(document: OpenAPIObject): OpenAPIObject {
  document.components ??= {};
  document.components.schemas ??= {};
  document.components.schemas.ErrorBody = ERROR_BODY_SCHEMA as never;
  for (const [path, item] of Object.entries(document.paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) addCommonErrors(path, operation);
    }
  return document;
}

function addCommonErrors(path: string, operation: Operation): void {
  const responses: Responses = operation.responses;
  const add = (status: number, description: string) => {
    responses[status] ??= { description };
  };
  const validated = (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined;
  if (validated)
    add(
      400,
      'a parameter or the body does not validate: `details.fields` lists each field with its problems',
    );
  if (operation.requestBody !== undefined) add(413, 'the body is larger than the service takes');
  const loggedIn = (operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0);
  if (loggedIn) {
    add(401, 'no credentials, or wrong ones');
    add(403, 'the caller may not do this (another org, a role too low, a node speaking for another node)');
  }
  if (path.includes('{'))
    add(404, 'nothing of that name or id (or it belongs to an org the caller cannot see)');
  add(503, 'the database or a service it needs cannot be reached now; try again (`Retry-After`)');
  for (const [status, response] of Object.entries(responses))
    if (Number(status) >= 400 && response && 'description' in response && !response.content)
      response.content = { 'application/json': { schema: { $ref: ERROR_BODY } } };
}
