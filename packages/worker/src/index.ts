export const PACKAGE = '@tributary/worker';
