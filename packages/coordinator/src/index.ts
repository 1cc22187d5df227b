export const PACKAGE = '@tributary/coordinator';
