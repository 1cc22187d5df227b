/**
 * Builds a generated Thrift struct from the fields given: the metastore's structs declare every
 * field in their constructor, but a field left out is simply not sent (the metastore's default).
 */
type StructArgs<C> = C extends new (args?: infer A) => unknown ? NonNullable<A> : never;

export function struct<C extends new (args?: never) => unknown>(ctor: C, args: Partial<StructArgs<C>>): InstanceType<C> {
  return new ctor(args as never) as InstanceType<C>;
}
