/**
 * The placement figure as a node sees it: a real exchange and agbot in this process, N nodes
 * × P deployment policies, then one node's policy changes through the exchange API and the
 * clock runs until that node, reading its desired workloads with its own token, sees the new
 * set. Next to it, in the same run and for the same change, the exchange alone: the policy
 * written and read back (PUT policy → GET node).
 *
 * Nodes are inserted straight into the exchange's table (registering each through the API
 * would spend the run hashing tokens); the agbot still learns them the normal way, from its
 * resync through the exchange API. Every later change goes through the API.
 */
import { CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, TokenIssuer } from '@careen/auth';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { SigningKeyStore } from '@careen/exchange/src/keys/signing-key.store';
import { startServiceInProcess } from '@careen/service';
import { withClient } from '@careen/testing';
import { type BenchStack } from './bench-stack';
import { inTurn } from './round-robin';
import { summarize } from './stats';

const PASSWORD = 'bench-password';
const ORG = 'bench';
/** Node groups: policy i wants nodes of group i % GROUPS, so each node runs POLICIES / GROUPS of them. */
const GROUPS = 10;
/** Nodes whose policy the run changes, each with its own token. */
const MEASURED = 10;
const WARM_UP = 5;

export interface EndToEndOptions {
  nodes: number;
  policies: number;
  changes: number;
}

export interface EndToEndFigures {
  /** PUT node policy sent → the node's GET workloads answers the new set. */
  endToEnd: ReturnType<typeof summarize>;
  /** PUT node policy sent → GET node (as the admin, sent once the PUT answered) answers the new policy. */
  exchangeRoundTrip: ReturnType<typeof summarize>;
  /** GET workloads requests the node made while waiting, per change. */
  polls: ReturnType<typeof summarize>;
  /** How long the agbot took from start to every node's first workloads delivered. */
  initialPlacementMs: number;
  workloadsPerNode: number;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const groupOf = (group: number) => `g${group}`;
const policiesOfGroup = (group: number, policies: number) =>
  Array.from({ length: policies }, (_, i) => i)
    .filter((i) => i % GROUPS === group)
    .map((i) => `policy-${i}`);

export async function measurePlacementEndToEnd(
  stack: BenchStack,
  options: EndToEndOptions,
): Promise<EndToEndFigures> {
  const exchange = await startServiceInProcess(exchangeService, stack, { CAREEN_ROOT_PASSWORD: PASSWORD });
  let agbot: { close(): Promise<void> } | undefined;
  try {
    let adminToken = '';
    const call = async (method: string, path: string, body?: unknown, token?: string): Promise<Answer> => {
      const response = await fetch(new URL(path, exchange.url), {
        method,
        headers: {
          'content-type': 'application/json',
          // Bearer tokens, so that no request pays for checking a password hash.
          authorization: token
            ? `Bearer ${token}`
            : adminToken
              ? `Bearer ${adminToken}`
              : `Basic ${Buffer.from(`root/root:${PASSWORD}`).toString('base64')}`,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    const must = async (method: string, path: string, body?: unknown): Promise<Answer> => {
      const answer = await call(method, path, body);
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer.body)}`);
      return answer;
    };

    adminToken = String(
      (await must('POST', '/v1/auth/token', { org: 'root', username: 'root', password: PASSWORD })).body
        .accessToken,
    );
    await must('POST', '/v1/orgs', { id: ORG });
    for (let i = 0; i < options.policies; i++) {
      await must('PUT', `/v1/orgs/${ORG}/services/svc-${i}`, {
        url: `svc-${i}`,
        version: '1.0.0',
        arch: 'amd64',
        runtime: {},
      });
      await must('PUT', `/v1/orgs/${ORG}/deployment-policies/policy-${i}`, {
        project: 'bench',
        service: { org: ORG, url: `svc-${i}`, versionRange: '^1' },
        constraints: [`group == "${groupOf(i % GROUPS)}"`],
        placement: { mode: 'all' },
      });
    }
    const nodeIds = Array.from({ length: options.nodes }, (_, i) => `node-${i}`);
    await withClient(stack.databaseUrl, (client) =>
      client.query(
        `INSERT INTO exchange.nodes (org, id, name, token_hash, policy, labels, tags, schedulable, desired_workloads)
         SELECT $1, id, id, 'unused', jsonb_build_object('properties', jsonb_build_array(jsonb_build_object('name', 'group', 'value', 'g' || (n % ${GROUPS}))), 'constraints', '[]'::jsonb),
                '{}'::jsonb, '{}', true, '[]'::jsonb
         FROM unnest($2::text[]) WITH ORDINALITY AS s(id, n)`,
        [ORG, nodeIds],
      ),
    );
    // Node i is in group (i + 1) % GROUPS (ordinality counts from 1).
    const groups = new Map(nodeIds.map((id, i) => [id, (i + 1) % GROUPS]));
    const issuer = new TokenIssuer(exchange.app.get(SigningKeyStore).current(), {
      issuer: CAREEN_TOKEN_ISSUER,
      audience: CAREEN_TOKEN_AUDIENCE,
      ttlSeconds: 3600,
    });
    const measured = nodeIds
      .filter((_, i) => i % Math.floor(options.nodes / MEASURED) === 0)
      .slice(0, MEASURED);
    const tokens = new Map(
      await Promise.all(
        measured.map(
          async (node) =>
            [node, (await issuer.issue({ kind: 'node', org: ORG, node })).accessToken] as [string, string],
        ),
      ),
    );
    const workloadsOf = async (node: string): Promise<string[]> => {
      const answer = await call(
        'GET',
        `/v1/orgs/${ORG}/nodes/${node}/workloads`,
        undefined,
        tokens.get(node),
      );
      if (answer.status !== 200) throw new Error(`GET workloads of ${node}: ${JSON.stringify(answer.body)}`);
      return (answer.body.items as { deploymentPolicy: string }[])
        .map((each) => each.deploymentPolicy)
        .sort();
    };
    const sameSet = (a: string[], b: string[]) => a.join(',') === [...b].sort().join(',');

    const starting = performance.now();
    agbot = await startServiceInProcess(agbotService, stack, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: PASSWORD,
    });
    // Settled: every node's workloads recorded and delivered, and the measured nodes see theirs.
    for (;;) {
      const [row] = await withClient(
        stack.databaseUrl,
        async (client) =>
          (
            await client.query<{ total: string; pending: string }>(
              'SELECT count(*) AS total, count(*) FILTER (WHERE NOT published) AS pending FROM agbot.node_workloads',
            )
          ).rows,
      ).catch(() => [{ total: '0', pending: '0' }]);
      if (Number(row?.total) === options.nodes && Number(row?.pending) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const initialPlacementMs = performance.now() - starting;
    for (const node of measured) {
      const wanted = policiesOfGroup(groups.get(node)!, options.policies);
      if (!sameSet(await workloadsOf(node), wanted))
        throw new Error(`${node} does not run ${wanted.join(',')}`);
    }

    /** Changes one node's group; answers both timings, from the moment the PUT is sent. */
    const changeOnce = async (node: string, group: number) => {
      const wanted = policiesOfGroup(group, options.policies);
      const sent = performance.now();
      const put = await call('PUT', `/v1/orgs/${ORG}/nodes/${node}/policy`, {
        properties: [{ name: 'group', value: groupOf(group) }],
        constraints: [],
      });
      if (put.status >= 300) throw new Error(`PUT policy of ${node}: ${JSON.stringify(put.body)}`);
      // The baseline read runs beside the node's own polling, so neither delays the other.
      const readBack = call('GET', `/v1/orgs/${ORG}/nodes/${node}`).then((read) => {
        const properties = (read.body.policy as { properties: { value: unknown }[] }).properties;
        if (properties[0]?.value !== groupOf(group)) throw new Error(`GET ${node} answered the old policy`);
        return performance.now() - sent;
      });
      let asked = 0;
      for (;;) {
        asked++;
        if (sameSet(await workloadsOf(node), wanted)) break;
      }
      const seen = performance.now() - sent;
      groups.set(node, group);
      return { seen, readBack: await readBack, asked };
    };
    const nextGroup = (node: string, change: number) =>
      (groups.get(node)! + 1 + (change % (GROUPS - 1))) % GROUPS;

    // A few unmeasured changes first: the agbot's consumer and the exchange's caches warm up.
    for (let change = 0; change < WARM_UP; change++) {
      const node = inTurn(measured, change);
      await changeOnce(node, nextGroup(node, change));
    }
    const endToEnd: number[] = [];
    const roundTrip: number[] = [];
    const polls: number[] = [];
    for (let change = 0; change < options.changes; change++) {
      const node = inTurn(measured, change);
      const figures = await changeOnce(node, nextGroup(node, change));
      endToEnd.push(figures.seen);
      roundTrip.push(figures.readBack);
      polls.push(figures.asked);
    }
    return {
      endToEnd: summarize(endToEnd),
      exchangeRoundTrip: summarize(roundTrip),
      polls: summarize(polls),
      initialPlacementMs,
      workloadsPerNode: options.policies / GROUPS,
    };
  } finally {
    await agbot?.close();
    await exchange.close();
  }
}
