import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The instance groups projects declared to the maintenance service (its InstanceGroupDeclared
 * events), newest revision kept, a removed one kept as such so that an older state arriving late
 * cannot bring it back. A group's members are the instances of the deployment policies it
 * names that are its own project's (`instance_group_members`): a policy of another project named
 * in a declaration is never constrained by it. Only additions: the previous release never reads them.
 */
export class InstanceGroups1765100000000 implements MigrationInterface {
  name = 'InstanceGroups1765100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE agbot.instance_groups (
        org text NOT NULL,
        group_id text NOT NULL,
        project text NOT NULL,
        anti_affinity boolean NOT NULL,
        max_per_host integer NOT NULL,
        max_impacted integer NOT NULL,
        recovery_seconds integer NOT NULL,
        policies text[] NOT NULL,
        removed boolean NOT NULL,
        revision bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, group_id)
      )`);
    await runner.query(`
      CREATE VIEW agbot.instance_group_members AS
        SELECT g.org, g.group_id, g.project, g.anti_affinity, g.max_per_host, g.max_impacted,
               g.recovery_seconds, p.policy
        FROM agbot.instance_groups AS g
        CROSS JOIN LATERAL unnest(g.policies) AS p(policy)
        JOIN agbot.mirrored_resources AS m
          ON m.org = g.org AND m.resource = 'deploymentPolicy' AND m.id = p.policy
             AND m.data ->> 'project' = g.project
        WHERE NOT g.removed`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP VIEW agbot.instance_group_members');
    await runner.query('DROP TABLE agbot.instance_groups');
  }
}
