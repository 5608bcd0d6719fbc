/**
 * Asking the person at the terminal. Prompts go to stderr so stdout stays data only. Prompting
 * happens only when stdin is a terminal; otherwise callers must have the value from a flag,
 * the environment or --password-stdin, and say so.
 */
import { PromptCancelled } from '../cli-errors';
import { type CliInput, type CliOutput } from '../cli-io';

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const BACKSPACE = '\u007f';

export function isInteractive(stdin: CliInput | undefined): stdin is CliInput {
  return stdin?.isTTY === true;
}

/** One line typed at the terminal (echoed by the terminal itself); `fallback` when left empty. */
export function promptLine(
  stdin: CliInput,
  stderr: CliOutput,
  question: string,
  fallback?: string,
): Promise<string> {
  stderr.write(fallback ? `${question} [${fallback}]: ` : `${question}: `);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = () => {
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      stdin.pause();
    };
    const onData = (chunk: Buffer | string) => {
      typed += chunk.toString();
      const newline = typed.indexOf('\n');
      if (newline < 0) return;
      finish();
      const answer = typed.slice(0, newline).replace(/\r$/, '').trim();
      resolve(answer || fallback || '');
    };
    const onEnd = () => {
      finish();
      stderr.write('\n');
      reject(new PromptCancelled());
    };
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.resume();
  });
}

/** A secret typed at the terminal, not echoed. */
export function promptSecret(stdin: CliInput, stderr: CliOutput, question: string): Promise<string> {
  stderr.write(`${question}: `);
  return new Promise((resolve, reject) => {
    const wasRaw = stdin.isRaw === true;
    let secret = '';
    const finish = () => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(wasRaw);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n' || char === CTRL_D) {
          finish();
          resolve(secret);
          return;
        }
        if (char === CTRL_C) {
          finish();
          reject(new PromptCancelled());
          return;
        }
        if (char === BACKSPACE || char === '\b') {
          secret = Array.from(secret).slice(0, -1).join('');
        } else if (char >= ' ') {
          secret += char;
        }
      }
    };
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** Yes only for an explicit y/yes. */
export async function confirm(stdin: CliInput, stderr: CliOutput, question: string): Promise<boolean> {
  const answer = await promptLine(stdin, stderr, `${question} [y/N]`);
  return /^y(es)?$/i.test(answer);
}

/** All of stdin, less one final line break (what `echo secret |` adds). */
export async function readAllInput(stdin: CliInput | undefined): Promise<string> {
  if (!stdin) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
