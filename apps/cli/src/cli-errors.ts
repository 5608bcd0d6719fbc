/**
 * Failures the CLI expects: a user mistake, a refusal by the exchange, an unreachable exchange.
 * They are reported as `error: …` lines and an exit code, never with a stack.
 */
export class CliError extends Error {
  constructor(
    message: string,
    /** Lines printed under the message, indented (e.g. the fields of a 400). */
    readonly details: readonly string[] = [],
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = new.target.name;
  }

  lines(): string[] {
    return [`error: ${this.message}`, ...this.details.map((line) => `  ${line}`)];
  }
}

/** The user pressed Ctrl-C or Ctrl-D at a prompt; the conventional exit code of SIGINT. */
export class PromptCancelled extends CliError {
  constructor() {
    super('cancelled', [], 130);
  }
}
