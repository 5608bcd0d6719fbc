/**
 * The exchange commands of rollouts and upgrades in SQL, each kept under its holder (`rollout
 * <id>`, `upgrade <id>`, as node claims name them) in the order its steps gave them. A command
 * is added in the transaction of the step that decided it and marked done once carried out;
 * those done stay, for the next step to read what they brought about.
 */
import { type DataSource, type EntityManager } from 'typeorm';
import {
  type CarriedOutCommand,
  type CommandResult,
  type ExchangeCommand,
  policyOf,
} from './exchange-command';

const S = 'deployment_orchestrator';

interface PendingCommand {
  id: string;
  command: ExchangeCommand;
}

export class CommandStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds a step's commands, in the order they are to be carried out, in the step's transaction. */
  async add(manager: EntityManager, holder: string, commands: readonly ExchangeCommand[]): Promise<void> {
    if (commands.length === 0) return;
    const rows = commands.map((command) => ({ policy: policyOf(command), command }));
    await manager.query(
      `INSERT INTO ${S}.exchange_commands (holder, policy, command)
       SELECT $1, r->>'policy', r->'command'
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(r, n) ORDER BY n`,
      [holder, JSON.stringify(rows)],
    );
  }

  /** The holder's commands not carried out yet, oldest first. */
  async pending(holder: string): Promise<PendingCommand[]> {
    const rows: { id: string; command: ExchangeCommand }[] = await this.dataSource.query(
      `SELECT id, command FROM ${S}.exchange_commands WHERE holder = $1 AND done_at IS NULL ORDER BY id`,
      [holder],
    );
    return rows.map((row) => ({ id: String(row.id), command: row.command }));
  }

  /** Whether any of the holder's commands is still to carry out, read in the caller's transaction. */
  async anyPending(manager: EntityManager, holder: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM ${S}.exchange_commands WHERE holder = $1 AND done_at IS NULL LIMIT 1`,
      [holder],
    );
    return rows.length > 0;
  }

  /** The holder's commands for `policy` that were carried out, oldest first. */
  async carriedOut(holder: string, policy: string): Promise<CarriedOutCommand[]> {
    const rows: { command: ExchangeCommand; result: CommandResult | null; done_at: Date }[] =
      await this.dataSource.query(
        `SELECT command, result, done_at FROM ${S}.exchange_commands
          WHERE holder = $1 AND policy = $2 AND done_at IS NOT NULL ORDER BY id`,
        [holder, policy],
      );
    return rows.map((row) => ({ command: row.command, result: row.result, doneAt: row.done_at }));
  }

  /** Marks the command carried out at `at` (the driver's clock, which the steps reading it keep). */
  async done(id: string, at: Date, result: CommandResult | undefined): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${S}.exchange_commands SET done_at = $2, attempts = attempts + 1, result = $3 WHERE id = $1`,
      [id, at, result ? JSON.stringify(result) : null],
    );
  }

  /** The command could not be carried out now: it stays pending, with why, for the next pass. */
  async putOff(id: string, why: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${S}.exchange_commands SET attempts = attempts + 1, last_error = $2 WHERE id = $1`,
      [id, why],
    );
  }
}
