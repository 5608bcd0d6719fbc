import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What a project's VNF manager declares of its instances before any session (Fenix's
 * constraints API): instance groups with how many of their instances may be impacted at once and
 * how long they need between two disruptions, and per instance its group and its own limits.
 * Only additions: the previous release never reads them.
 */
export class Constraints1765000000000 implements MigrationInterface {
  name = 'Constraints1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE maintenance_session.instance_groups (
        org text NOT NULL,
        group_id text NOT NULL,
        project text NOT NULL,
        group_name text NOT NULL,
        anti_affinity_group boolean NOT NULL,
        max_instances_per_host integer NOT NULL,
        max_impacted_members integer NOT NULL,
        recovery_time integer NOT NULL,
        resource_mitigation boolean NOT NULL,
        updated_by text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, group_id)
      )`);
    await runner.query(`
      CREATE TABLE maintenance_session.instance_constraints (
        org text NOT NULL,
        instance_id text NOT NULL,
        project text NOT NULL,
        group_id text,
        instance_name text NOT NULL,
        max_interruption_time integer NOT NULL,
        migration_type text NOT NULL,
        resource_mitigation boolean NOT NULL,
        lead_time integer NOT NULL,
        updated_by text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, instance_id),
        FOREIGN KEY (org, group_id) REFERENCES maintenance_session.instance_groups (org, group_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE maintenance_session.instance_constraints');
    await runner.query('DROP TABLE maintenance_session.instance_groups');
  }
}
