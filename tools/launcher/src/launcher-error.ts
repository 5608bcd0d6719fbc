/** A failure the user can act on: printed as its message alone, without a stack trace. */
export class LauncherError extends Error {
  override readonly name = 'LauncherError';
}
