import { DomainError } from '@careen/contracts';

export enum AgentPackageErrorCode {
  NotGzip = 'PACKAGE_NOT_GZIP',
  TruncatedGzip = 'PACKAGE_TRUNCATED',
  NotTar = 'PACKAGE_NOT_TAR',
  ManifestMissing = 'PACKAGE_MANIFEST_MISSING',
  ManifestInvalid = 'PACKAGE_MANIFEST_INVALID',
  UnexpectedEntry = 'PACKAGE_UNEXPECTED_ENTRY',
  UnsafeEntry = 'PACKAGE_UNSAFE_ENTRY',
  TooLarge = 'PACKAGE_TOO_LARGE',
  UploadInterrupted = 'PACKAGE_UPLOAD_INTERRUPTED',
  SignatureInvalid = 'PACKAGE_SIGNATURE_INVALID',
  PackageExists = 'PACKAGE_EXISTS',
  PackageNotFound = 'PACKAGE_NOT_FOUND',
  PackageInUse = 'PACKAGE_IN_USE',
}

const invalid = (code: AgentPackageErrorCode, message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid', code, message, details ? { code, ...details } : undefined);

export const notGzip = () =>
  invalid(AgentPackageErrorCode.NotGzip, 'the package is not gzip data (it must be a .tar.gz)');
export const truncatedGzip = (cause: string) =>
  invalid(AgentPackageErrorCode.TruncatedGzip, `the package's gzip stream is truncated or corrupt: ${cause}`);
export const notTar = (cause: string) =>
  invalid(AgentPackageErrorCode.NotTar, `the package is not a valid tar archive: ${cause}`);
export const manifestMissing = (message: string) => invalid(AgentPackageErrorCode.ManifestMissing, message);
export const manifestInvalid = (message: string, fields?: { field: string; problems: string[] }[]) =>
  invalid(AgentPackageErrorCode.ManifestInvalid, message, fields ? { fields } : undefined);
export const unexpectedEntry = (entry: string, message: string) =>
  invalid(AgentPackageErrorCode.UnexpectedEntry, message, { entry });
export const unsafeEntry = (entry: string, message: string) =>
  invalid(AgentPackageErrorCode.UnsafeEntry, message, { entry });
export const packageTooLarge = (maxBytes: number) =>
  new DomainError(
    'too-large',
    AgentPackageErrorCode.TooLarge,
    `the package exceeds the ${maxBytes}-byte limit for agent packages`,
    { maxBytes },
  );
export const uploadInterrupted = (cause: string) =>
  invalid(AgentPackageErrorCode.UploadInterrupted, `the upload did not complete: ${cause}`);
export const signatureInvalid = (message: string) => invalid(AgentPackageErrorCode.SignatureInvalid, message);
export const packageExists = (version: string, existing: string) =>
  new DomainError(
    'conflict',
    AgentPackageErrorCode.PackageExists,
    existing === version
      ? `agent package ${version} already exists`
      : `agent package ${existing} already exists with the same precedence as ${version}`,
  );
export const packageNotFound = (version: string) =>
  new DomainError('not-found', AgentPackageErrorCode.PackageNotFound, `agent package ${version} not found`);

export const packageInUse = (version: string, policies: readonly string[]) =>
  new DomainError(
    'conflict',
    AgentPackageErrorCode.PackageInUse,
    `agent package ${version} is the version of enabled management ${policies.length === 1 ? 'policy' : 'policies'} ${policies.join(', ')}: disable or change ${policies.length === 1 ? 'it' : 'them'} first`,
    { version, policies },
  );
