/**
 * The contract check: every answer the test suite saw a service give — recorded by the harness
 * when `npm test` sets CAREEN_RECORD_ANSWERS — held against that service's OpenAPI document as
 * the service serves it. Any answer the document does not describe fails: an operation it
 * lacks, a status it does not list, a media type it does not give, a body its schema refuses
 * (a field it does not name included). `npm test` runs this after the suite; a copy of a
 * document broken on purpose shows the check can fail.
 */
import { type RecordedAnswer } from '@careen/service';
import { http, useTestInfra } from '@careen/testing';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAllServices } from '../support/all-services';
import { AnswerContract, documentPath, type OpenApiDocument } from './answer-contract';

const ANSWERS = resolve(__dirname, '..', '..', '.careen', 'answers');

function recordedAnswers(): RecordedAnswer[] {
  if (!existsSync(ANSWERS)) return [];
  return readdirSync(ANSWERS)
    .filter((file) => file.endsWith('.jsonl'))
    .flatMap((file) => readFileSync(join(ANSWERS, file), 'utf8').split('\n'))
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RecordedAnswer);
}

/** Each distinct problem once, with the answer it was found in and how often. */
function mismatches(answers: RecordedAnswer[], contracts: Record<string, AnswerContract>): string[] {
  const found = new Map<string, number>();
  for (const answer of answers) {
    const contract = contracts[answer.service];
    const problems = contract ? contract.problems(answer) : ['no document of this service'];
    for (const problem of problems) {
      const line = `${answer.service} ${answer.method} ${answer.route} → ${answer.status}: ${problem}`;
      found.set(line, (found.get(line) ?? 0) + 1);
    }
  }
  return [...found].map(([line, count]) => (count > 1 ? `${line} (×${count})` : line)).sort();
}

describe('the answers the suite saw, held against the OpenAPI documents', () => {
  const infra = useTestInfra();
  const documents: Record<string, OpenApiDocument> = {};
  const answers = recordedAnswers();

  beforeAll(async () => {
    for (const [name, url] of Object.entries(await startAllServices(infra)))
      documents[name] = (await http(url, 'GET', '/docs/openapi.json')).body;
  }, 120_000);

  const contracts = () =>
    Object.fromEntries(
      Object.entries(documents).map(([name, document]) => [name, new AnswerContract(document)]),
    );

  it('has answers of every service to check', () => {
    const services = new Set(answers.map((answer) => answer.service));
    expect({ folder: ANSWERS, services: [...services].sort() }).toEqual({
      folder: ANSWERS,
      services: Object.keys(documents).sort(),
    });
    // How much of each document the suite reached.
    const operations = (document: OpenApiDocument) =>
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method} ${path}`),
      );
    const lines = Object.entries(documents).map(([name, document]) => {
      const seen = new Set(
        answers
          .filter((answer) => answer.service === name)
          .map((answer) => `${answer.method.toLowerCase()} ${documentPath(answer.route)}`),
      );
      const all = operations(document);
      const missed = all.filter((operation) => !seen.has(operation));
      return `${name}: ${all.length - missed.length} of ${all.length} operations answered${missed.length ? `; not seen: ${missed.join(', ')}` : ''}`;
    });
    process.stdout.write(`${answers.length} answers checked\n${lines.join('\n')}\n`);
  });

  it('finds every answer as its document describes it', () => {
    expect(mismatches(answers, contracts())).toEqual([]);
  });

  it('reports a wrong response schema and an undocumented status in a copy broken on purpose', () => {
    // An answer of a documented operation: the operational routes (`/readyz`, …) answer JSON too.
    const json = (answer: RecordedAnswer) =>
      answer.service === 'exchange' &&
      answer.body !== undefined &&
      documents.exchange!.paths[documentPath(answer.route)]?.[answer.method.toLowerCase()] !== undefined;
    const ok = answers.find((answer) => json(answer) && answer.status === 200)!;
    const refused = answers.find(
      (answer) => json(answer) && answer.status === 404 && answer.route !== ok.route,
    )!;
    const broken = structuredClone(documents.exchange!);
    const operation = (answer: RecordedAnswer) =>
      broken.paths[documentPath(answer.route)]![answer.method.toLowerCase()]!;
    operation(ok).responses[200]!.content!['application/json']!.schema = {
      type: 'object',
      required: ['nothing'],
      properties: { nothing: { type: 'string' } },
    };
    delete operation(refused).responses[404];

    const problems = mismatches([ok, refused], { ...contracts(), exchange: new AnswerContract(broken) });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`${ok.route} → 200: body must have required property 'nothing'`),
        expect.stringMatching(
          new RegExp(
            `${refused.route.replace(/[{}]/g, '\\$&')} → 404: the document lists .*, not this status`,
          ),
        ),
      ]),
    );
  });
});
