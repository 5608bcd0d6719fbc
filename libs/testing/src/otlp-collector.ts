/**
 * A stand-in OTLP/HTTP collector: records every request it gets (a traced process pointed at it
 * may call it for other paths too) and reads the spans posted to `/v1/traces` as JSON, each with
 * the name of the service that sent it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo } from 'node:net';

export interface CollectedRequest {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's span kind: 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string } }[];
}

interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: Omit<CollectedSpan, 'service'>[] }[];
  }[];
}

export interface OtlpCollector {
  url: string;
  requests: CollectedRequest[];
  /** The spans of every export so far. */
  spans(): CollectedSpan[];
  close(): Promise<void>;
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const requests: CollectedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    spans: () =>
      requests
        .filter((request) => request.method === 'POST' && request.url === '/v1/traces')
        .flatMap((request) => (JSON.parse(request.body) as OtlpTraces).resourceSpans)
        .flatMap((resourceSpans) => {
          const service =
            resourceSpans.resource.attributes.find((each) => each.key === 'service.name')?.value
              .stringValue ?? '';
          return resourceSpans.scopeSpans.flatMap((scope) =>
            scope.spans.map((span) => ({ ...span, service })),
          );
        }),
    close: () => new Promise((closed, failed) => server.close((error) => (error ? failed(error) : closed()))),
  };
}
