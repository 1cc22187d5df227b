export const PACKAGE = '@tributary/table';
