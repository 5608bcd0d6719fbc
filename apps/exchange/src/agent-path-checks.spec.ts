/**
 * The compiled checks of the agent path's DTOs never accept what their class-validator rules
 * refuse, and take what agents send: for inputs made of values on both sides of every rule,
 * whatever the compiled check accepts, the validation pipe's class-validator path accepts too,
 * as the same DTO.
 */
import { MANAGEMENT_STATUSES } from '@careen/contracts';
import { checkCompiled } from '@careen/contracts';
import { createValidationPipe } from '@careen/service';
import {
  compiledCheckProperty,
  field,
  identifiers,
  isoTimes,
  mostly,
  queryNumbers,
  someOf,
  textAround,
} from '@careen/testing';
import fc from 'fast-check';
import { ChangeQueryDto } from './changes/dto/change-query.dto';
import { ManagementStatusDto } from './management-status/dto/management-status.dto';
import { NodeStatusDto } from './nodes/dto/node-status.dto';

const checkedAlike = compiledCheckProperty({
  compiled: checkCompiled,
  classValidator: createValidationPipe({ compiledChecks: false }),
});

describe('compiled checks of the agent path', () => {
  it("a poll's query: taken only as class-validator takes it, numbers converted alike", async () => {
    const numbers = queryNumbers(120);
    const query = someOf({ since: numbers, wait: numbers, limit: numbers });
    expect(await checkedAlike(ChangeQueryDto, 'query', query, 1_500)).toBeGreaterThan(100);
    expect(checkCompiled(ChangeQueryDto, 'query', { since: '42', wait: '30' })).toEqual({
      since: 42,
      wait: 30,
      limit: 100,
    });
  });

  it('a status report: taken only as class-validator takes it', async () => {
    const agentVersion = someOf({
      package: field(textAround(64)),
      failed: field(textAround(64)),
      upgradeStart: field(isoTimes),
      upgradeEnd: field(isoTimes),
    });
    const workload = someOf({
      deploymentPolicy: field(identifiers),
      service: field(
        someOf({ org: field(identifiers), url: field(textAround(256)), version: field(textAround(64)) }),
      ),
      state: field(textAround(64)),
    });
    const report = someOf({
      agentVersion: field(agentVersion),
      workloads: field(fc.array(field(workload), { maxLength: 3 })),
    });
    expect(await checkedAlike(NodeStatusDto, 'body', report, 4_000)).toBeGreaterThan(100);
  });

  it('a management status: taken only as class-validator takes it', async () => {
    const statuses = mostly(fc.constantFrom(...MANAGEMENT_STATUSES), fc.constantFrom('Waiting', 'done', ''));
    const body = someOf({
      status: field(statuses),
      version: field(textAround(64)),
      fromVersion: field(textAround(64)),
      startTime: field(isoTimes),
      endTime: field(isoTimes),
      error: field(textAround(4000)),
    });
    expect(await checkedAlike(ManagementStatusDto, 'body', body, 1_500)).toBeGreaterThan(100);
  });

  it('what an agent sends takes the compiled path', () => {
    const workloads = [
      { deploymentPolicy: 'gw', service: { org: 'acme', url: 'acme.gw', version: '1.0.0' } },
    ];
    expect(checkCompiled(NodeStatusDto, 'body', { agentVersion: { package: '2.0.0' }, workloads })).toEqual({
      agentVersion: { package: '2.0.0' },
      workloads,
    });
    const step = {
      status: 'downloading',
      version: '2.0.0',
      fromVersion: '1.0.0',
      startTime: '2026-12-01T02:03:04.000Z',
    };
    expect(checkCompiled(ManagementStatusDto, 'body', step)).toEqual(step);
  });
});
