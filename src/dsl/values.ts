// The language's values, gathered: 16-lane vectors of ints (IntExpr), floats (FloatExpr) and
// addresses (PtrExpr), vector conditions (BoolValue) and conditions over lanes (CondValue), and
// the variables (IntVar, FloatVar, PtrVar) that statements assign. The rest of the language and
// the runtime import them from here; they live, in the order they import each other, in:
//
//   vec.ts         the base class Vec, arguments as expressions (exprOf, literal), and the errors
//                  for values made by hand or given to JavaScript's operators (noPrimitive)
//   conditions.ts  BoolValue, CondValue, boolOf
//   numbers.ts     IntExpr and FloatExpr (operators, the float math library)
//   pointers.ts    PtrExpr (addresses, loads, stores)
//   variables.ts   IntVar, FloatVar, PtrVar, newVar

export { boolOf, BoolValue, CondValue } from './conditions.ts';
export {
  type Elem,
  type ElemExpr,
  type ElemLike,
  FloatExpr,
  floatExpr,
  type FloatLike,
  IntExpr,
  intExpr,
  type IntLike,
} from './numbers.ts';
export { PtrExpr } from './pointers.ts';
export { type ElemVar, FloatVar, IntVar, newVar, PtrVar } from './variables.ts';
export { describeTy, exprOf, literal, noPrimitive, type ValueKind } from './vec.ts';
