/**
 * The agent's state file, `state.json` in the state folder: written to a temporary file,
 * flushed and renamed over the old one, so a crash or power loss leaves either the old state
 * or the new one, never half of either. Only the agent's user can read it (it holds the token).
 */
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentState } from './agent-state';
import { type StateStore } from './state-store';

export class AgentStateError extends Error {}

export class AgentStateStore implements StateStore {
  readonly file: string;

  constructor(private readonly dir: string) {
    this.file = join(dir, 'state.json');
  }

  async load(): Promise<AgentState | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new AgentStateError(`${this.file} is not valid JSON; move it aside to start afresh`);
    }
    const state = plainToInstance(AgentState, raw);
    const errors = validateSync(state);
    if (errors.length > 0) {
      throw new AgentStateError(
        `${this.file} is invalid (${errors.map((error) => error.property).join(', ')}); move it aside to start afresh`,
      );
    }
    return state;
  }

  async save(text: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
  }
}
