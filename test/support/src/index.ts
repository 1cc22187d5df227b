export { services } from './services.ts';
export { uniqueName } from './names.ts';
