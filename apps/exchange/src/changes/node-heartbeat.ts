/**
 * A node's poll of the change feed is its heartbeat: the exchange stamps the node's
 * `status.lastHeartbeat`. It is not a change of the node, so nothing is published for it.
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

@Injectable()
export class NodeHeartbeat {
  constructor(private readonly dataSource: DataSource) {}

  async beat(org: string, node: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE exchange.nodes
       SET status = jsonb_set(coalesce(status, '{}'::jsonb), '{lastHeartbeat}', to_jsonb(to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
       WHERE org = $1 AND id = $2`,
      [org, node],
    );
  }
}
