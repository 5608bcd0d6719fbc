/**
 * One HTTP stack of the `http-layer` bench in a process of its own: the change-feed poll and
 * the status report of the agent path, answered from memory (no Postgres, no bus, no
 * telemetry), so that what one request costs is the HTTP layer alone. Its argument picks the
 * stack:
 *   bare                a node:http server that parses the query or the JSON body and answers;
 *   <platform>-<check>  Nest on `express` or `fastify`, checking each request with the services'
 *                       validation pipe over the exchange's own DTOs: with class-validator alone
 *                       (`pipe`), or first with the DTOs' compiled checks, as the services do
 *                       (`compiled`).
 * Every Nest stack has a guard that reads the Authorization header, as the services' does.
 * Prints its port once listening.
 */
import { ChangeQueryDto } from '@careen/exchange/src/changes/dto/change-query.dto';
import { NodeStatusDto } from '@careen/exchange/src/nodes/dto/node-status.dto';
import { createValidationPipe } from '@careen/service';
import {
  Body,
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  Param,
  Put,
  Query,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, type Server } from 'node:net';

const stack = process.argv[2] ?? '';
const STACKS = ['bare', 'express-pipe', 'express-compiled', 'fastify-pipe', 'fastify-compiled'];
if (!STACKS.includes(stack)) throw new Error(`usage: http-layer-server <${STACKS.join('|')}>`);

/** What a poll with nothing new answers, and what a status report answers (the node, abridged). */
const feedAnswer = (since: number) => ({ changes: [], lastId: since });
const nodeAnswer = (org: string, id: string, status: unknown) => ({ org, id, status });

@Injectable()
class HeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (!request.headers.authorization?.startsWith('Bearer ')) throw new UnauthorizedException();
    return true;
  }
}

@Controller('v1/orgs/:org')
@UseGuards(HeaderGuard)
class AgentPathController {
  @Get('changes')
  poll(@Query() query: ChangeQueryDto): unknown {
    return feedAnswer(Number(query.since));
  }

  @Put('nodes/:id/status')
  report(@Param('org') org: string, @Param('id') id: string, @Body() status: NodeStatusDto): unknown {
    return nodeAnswer(org, id, status);
  }
}

@Module({ controllers: [AgentPathController] })
class AgentPathModule {}

async function nestServer(): Promise<Server> {
  const platform = stack.split('-')[0];
  const app =
    platform === 'fastify'
      ? await NestFactory.create(AgentPathModule, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(AgentPathModule, { logger: false });
  app.useGlobalPipes(createValidationPipe({ compiledChecks: stack.endsWith('-compiled') }));
  await app.listen(0, '127.0.0.1');
  return app.getHttpServer() as Server;
}

function bareServer(): Promise<Server> {
  const answer = (response: ServerResponse, body: unknown) => {
    const json = JSON.stringify(body);
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    });
    response.end(json);
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://bench');
      const [, , , org, kind, id] = url.pathname.split('/');
      if (request.method === 'GET' && kind === 'changes')
        return answer(response, feedAnswer(Number(url.searchParams.get('since') ?? 0)));
      answer(response, nodeAnswer(org!, id!, JSON.parse(Buffer.concat(chunks).toString())));
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((listening) => server.listen(0, '127.0.0.1', () => listening(server)));
}

void (async () => {
  const server = stack === 'bare' ? await bareServer() : await nestServer();
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  process.on('SIGTERM', () => process.exit(0));
})();
