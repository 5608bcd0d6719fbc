/**
 * Identifiers that travel in URLs and NATS subjects (org ids, user names, node ids): letters,
 * digits, '-' and '_', starting with a letter or digit. Dots and wildcards would split subjects.
 */
export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const IDENTIFIER_RULE = "1-64 letters, digits, '-' or '_', starting with a letter or digit";
