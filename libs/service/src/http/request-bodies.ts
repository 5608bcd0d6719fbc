/**
 * Request bodies: JSON up to a size limit; for services that take documents in YAML, YAML
 * bodies as text (the route parses them); any other media type left unread, for the route that
 * streams it (an agent package) or reads it itself (FleetLock), or refuses it. Oversized bodies
 * answer 413 and malformed JSON 400, in the common error shape, before any route runs.
 */
import { BadRequestException } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { type FastifyError, type FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { errorBody } from './error-body';

const BODY_LIMIT = { bytes: 1024 * 1024, name: '1mb' };

/** The media types a YAML body may come as. */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export function useRequestBodies(fastify: FastifyInstance, yaml = false): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT.bytes },
    (_request, text: string, done) => {
      try {
        done(null, parseJsonBody(text));
      } catch (error) {
        done(error as Error);
      }
    },
  );
  if (yaml) {
    fastify.addContentTypeParser(
      YAML_MEDIA_TYPES,
      { parseAs: 'string', bodyLimit: BODY_LIMIT.bytes },
      (_request, text, done) => done(null, text),
    );
  }
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));
}

/**
 * Nest's Fastify adapter, save that a body Fastify refuses for its size before any route runs
 * is answered here, naming the limit. Every other error goes on to Nest's filters.
 */
export class ServiceFastifyAdapter extends FastifyAdapter {
  override setErrorHandler(handler: Parameters<FastifyAdapter['setErrorHandler']>[0]) {
    return super.setErrorHandler(function (this: FastifyInstance, error: unknown, request, reply) {
      if ((error as FastifyError).code !== 'FST_ERR_CTP_BODY_TOO_LARGE')
        return handler.call(this, error, request, reply);
      void reply.status(413).send(errorBody(413, `request body exceeds the ${BODY_LIMIT.name} limit`));
    });
  }
}

/**
 * An object or an array; an empty body is an empty object, so that a route names each field it
 * misses. Keys that would reach an object's prototype when copied (`__proto__`,
 * `constructor.prototype`) are refused, as Fastify's own parser does.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw malformedJson((error as Error).message);
  }
  if (typeof value !== 'object' || value === null) throw malformedJson('a JSON object or array is expected');
  return value;
}

function malformedJson(why: string): BadRequestException {
  return new BadRequestException(`malformed JSON body: ${why}`);
}
