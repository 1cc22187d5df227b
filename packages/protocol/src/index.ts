export {
  TributaryError,
  defineErrorCatalogue,
  errorFrom,
  isTributaryError,
  toErrorData,
  type ErrorCatalogue,
  type ErrorContext,
  type ErrorData,
  type ErrorSpec,
} from './errors.ts';
