/**
 * Builds a hub service's HTTP app the same way in production and in tests: JSON bodies with
 * a size limit, validated DTOs, one error shape, request metrics and OpenAPI at /docs.
 */
import { type LoggerService, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { type Server } from 'node:http';
import { documentCommonErrors } from '../http/common-error-responses';
import { HttpErrorFilter } from '../http/http-error.filter';
import { DEFAULT_BODY_LIMIT, useJsonBody } from '../http/json-body';
import { createValidationPipe } from '../http/validation.pipe';
import { httpMetricsMiddleware } from '../metrics/http-metrics.middleware';
import { MetricsRegistry } from '../metrics/metrics.registry';

/**
 * How long an idle kept-alive connection stays open: longer than load balancers and proxies
 * keep theirs (60 s is common), so that one reusing a connection never finds it closed by the
 * service first and answers its client 502. Node's own default is 5 s.
 */
export const KEEP_ALIVE_SECONDS = 65;

export interface ServiceAppOptions {
  service: string;
  description: string;
  logger: LoggerService;
  bodyLimit?: string;
  /** Takes YAML request bodies as text, besides JSON. */
  yamlBodies?: boolean;
}

export async function createServiceApp(
  module: Type | object,
  options: ServiceAppOptions,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module as Type, {
    bodyParser: false,
    logger: options.logger,
    // The HTTP server closes last, once the service has stopped its work (the change feed has
    // answered its waiting polls): every connection still open then is closed with it, one that
    // never carried a request too, which Node would otherwise wait for its client to close.
    forceCloseConnections: true,
  });
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = KEEP_ALIVE_SECONDS * 1000;
  // Longer still, or Node could time a request's headers out on a connection kept open.
  server.headersTimeout = (KEEP_ALIVE_SECONDS + 1) * 1000;
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // No ETag hashed over every JSON answer: API clients do not revalidate them. A route whose
  // answer is worth revalidating (the key set, a package) sets its own.
  app.set('etag', false);
  app.use(httpMetricsMiddleware(app.get(MetricsRegistry)));
  useJsonBody(app, options.bodyLimit ?? DEFAULT_BODY_LIMIT, options.yamlBodies);
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
      .build(),
  );
  SwaggerModule.setup('docs', app, documentCommonErrors(document), { jsonDocumentUrl: 'docs/openapi.json' });
  return app;
}
