export const PACKAGE = '@tributary/protocol';
