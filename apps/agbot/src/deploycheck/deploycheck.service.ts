/**
 * Runs a deploy check against the agbot's mirror of the exchange. Owns the reading; the
 * verdicts are DeployChecker's.
 */
import { Injectable } from '@nestjs/common';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { type PlacementPolicy, type PlacementService } from '../placement/placement.types';
import { DeployChecker } from './deploy-checker';
import { type DeployCheckDto } from './deploycheck.dto';
import { type DeployCheckResult } from './deploycheck.types';

@Injectable()
export class DeployCheckService {
  private readonly checker = new DeployChecker();

  constructor(private readonly mirror: ExchangeMirror) {}

  async check(org: string, body: DeployCheckDto): Promise<DeployCheckResult> {
    const [nodes, policies, services] = await Promise.all([
      this.mirror.allNodes(),
      this.mirror.allResources<PlacementPolicy>('deploymentPolicy'),
      this.mirror.allResources<PlacementService>('service'),
    ]);
    return this.checker.check(
      {
        org,
        checkHA: body.checkHA ?? false,
        ...(body.deploymentPolicy !== undefined ? { deploymentPolicy: body.deploymentPolicy } : {}),
        ...(body.service !== undefined
          ? {
              service: {
                org: body.service.org ?? org,
                url: body.service.url,
                ...(body.service.version !== undefined ? { version: body.service.version } : {}),
              },
            }
          : {}),
        ...(body.haGroup !== undefined ? { haGroup: body.haGroup } : {}),
        ...(body.node !== undefined ? { node: body.node } : {}),
      },
      { nodes, policies, services },
    );
  }
}
