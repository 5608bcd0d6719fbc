/**
 * Builds a hub service's HTTP app the same way in production and in tests: Nest on Fastify,
 * JSON bodies with a size limit, validated DTOs, one error shape, request metrics and OpenAPI
 * at /docs.
 */
import { useActingContext } from '../audit/acting-context';
import { useRefusalAudit } from '../audit/refusal-audit';
import { EventPublisher } from '@careen/bus';
import { type LoggerService, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { documentCommonErrors } from '../http/common-error-responses';
import { HttpErrorFilter } from '../http/http-error.filter';
import { ServiceFastifyAdapter, useRequestBodies } from '../http/request-bodies';
import { createValidationPipe } from '../http/validation.pipe';
import { useHttpMetrics } from '../metrics/http-metrics.hook';
import { MetricsRegistry } from '../metrics/metrics.registry';

/**
 * How long an idle kept-alive connection stays open: longer than load balancers and proxies
 * keep theirs (60 s is common), so that one reusing a connection never finds it closed by the
 * service first and answers its client 502. Node's own default is 5 s.
 */
export const KEEP_ALIVE_SECONDS = 65;

/**
 * How many connections the kernel may hold for the service before it accepts them. Node asks
 * for 511; a fleet's agents opening their connections for a rollout's writes all at once, while
 * the event loop is busy, overflowed that by thousands: the kernel dropped their handshakes, and
 * the agents' writes failed connecting (a 10 s timeout or a reset) and backed off. Linux caps it
 * at `net.core.somaxconn` (4096 by default since 5.4).
 */
export const LISTEN_BACKLOG = 4096;

/**
 * The longest path parameter routed (Fastify's own default is 100 characters): an identifier
 * over its rule's length still reaches its route, whose pipe refuses it by name with a 400,
 * rather than a 404 as if the route did not exist.
 */
const MAX_PARAM_LENGTH = 2048;

export interface ServiceAppOptions {
  service: string;
  description: string;
  logger: LoggerService;
  /** Takes YAML request bodies as text, besides JSON. */
  yamlBodies?: boolean;
}

export async function createServiceApp(
  module: Type | object,
  options: ServiceAppOptions,
): Promise<NestFastifyApplication> {
  const adapter = new ServiceFastifyAdapter({
    keepAliveTimeout: KEEP_ALIVE_SECONDS * 1000,
    // The HTTP server closes last, once the service has stopped its work (the change feed has
    // answered its waiting polls): every connection still open then is closed with it, one that
    // never carried a request too, which Node would otherwise wait for its client to close.
    forceCloseConnections: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  });
  const app = await NestFactory.create<NestFastifyApplication>(module as Type, adapter, {
    bodyParser: false,
    logger: options.logger,
  });
  // Longer than the keep-alive, or Node could time a request's headers out on a connection
  // kept open.
  app.getHttpServer().headersTimeout = (KEEP_ALIVE_SECONDS + 1) * 1000;
  const fastify = app.getHttpAdapter().getInstance();
  await useActingContext(fastify);
  useRefusalAudit(fastify, options.service, app.get(EventPublisher), options.logger);
  useHttpMetrics(fastify, app.get(MetricsRegistry));
  useRequestBodies(fastify, options.yamlBodies);
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new HttpErrorFilter(options.logger));
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle(`Careen ${options.service}`)
      .setDescription(options.description)
      .setVersion('v1')
      .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
      // Paths are relative to wherever the service is reached (an Ingress may add a prefix).
      .addServer('/')
      .addBearerAuth()
      .addBasicAuth()
      // What Keystone-era clients (Fenix's VNF managers) send instead: read as a bearer credential.
      .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Auth-Token' }, 'X-Auth-Token')
      .build(),
  );
  SwaggerModule.setup('docs', app, documentCommonErrors(withUsedSchemesOnly(document)), {
    jsonDocumentUrl: 'docs/openapi.json',
  });
  return app;
}

/**
 * The document with only the security schemes some route names: X-Auth-Token is read on every
 * route of every service, but documented where clients that send it (Fenix's) call.
 */
function withUsedSchemesOnly(document: OpenAPIObject): OpenAPIObject {
  const schemes = document.components?.securitySchemes;
  if (!schemes) return document;
  const used = new Set(
    Object.values(document.paths).flatMap((path) =>
      Object.values(path as Record<string, { security?: Record<string, unknown>[] }>).flatMap((operation) =>
        (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
      ),
    ),
  );
  const kept = Object.fromEntries(Object.entries(schemes).filter(([name]) => used.has(name)));
  return { ...document, components: { ...document.components, securitySchemes: kept } };
}
