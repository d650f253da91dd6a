// The kernels bench/parallel.ts measures: reductions with parallelFor and by hand, a prefix sum
// and a bitonic sort, on any number of QPUs.
import {
  barrier, Float, For, gather, If, index, Int, type IntExpr, kernel, me, numQPUs, parallelFor, Ptr, receive, rotate, scanQPUs, select, store, sumQPUs, minQPUs, maxQPUs, While,
} from '../src/index.ts';

/** Sum, least and greatest of n floats: the user's whole kernel (9 lines). */
export const sumMinMax = kernel([Int, Ptr(Float), Ptr(Float)], function sumMinMax(n, x, out) {
  const [sum, lo, hi] = [Float(0), Float(Infinity), Float(-Infinity)];
  parallelFor(n, (i) => {
    const v = Float(x.add(i).load());
    sum.set(sum.add(v));
    lo.set(lo.min(v));
    hi.set(hi.max(v));
  });
  If(me().eq(0), () => out.store(select(index().eq(0), sum, select(index().eq(1), lo, hi)), 3));
});

/** The same by hand: this QPU's vectors me, me + N, ... (n a multiple of 16), then the lanes and the QPUs. */
export const handSum = kernel([Int, Ptr(Float), Ptr(Float)], function handSum(n, x, out) {
  const [sum, lo, hi] = [Float(0), Float(Infinity), Float(-Infinity)];
  const i = Int(me().shl(4));
  For(i.lt(n), () => i.set(i.add(numQPUs().shl(4))), () => {
    const v = Float(x.add(i).load());
    sum.set(sum.add(v));
    lo.set(lo.min(v));
    hi.set(hi.max(v));
  });
  const s = sumQPUs(sum.sumLanes());
  const l = minQPUs(lo.minLanes());
  const h = maxQPUs(hi.maxLanes());
  If(me().eq(0), () => out.store(select(index().eq(0), s, select(index().eq(1), l, h)), 3));
});

/**
 * Inclusive prefix sum of n ints: each QPU takes a contiguous part, sums it (a loop the compiler
 * pipelines), learns where its part starts from the QPUs before it (scanQPUs), then scans its
 * part a vector at a time, gathering each vector one ahead by hand (the compiler does not
 * pipeline a loop that follows a wait for other QPUs and stores: a QPU could hand it data).
 */
export const prefixSum = kernel([Int, Ptr(Int), Ptr(Int)], function prefixSum(n, x, out) {
  const per = Int(n.add(15).shr(4).add(numQPUs()).sub(1).div(numQPUs()).shl(4));
  const start = Int(me().mul(per).min(n));
  const end = Int(start.add(per).min(n));
  const full = Int(end.sub(end.sub(start).and(15)));
  const total = Int(0);
  const i = Int(start);
  For(i.lt(full), () => i.set(i.add(16)), () => {
    total.set(total.add(Int(x.add(i).load())));
  });
  total.set(total.add(Int(x.add(full).load(end.sub(full)))));
  const carry = Int(scanQPUs(total.sumLanes(), 'exclusive'));
  const v = Int(0);
  const scan = (count?: IntExpr) => {
    const s = Int(v.scanLanes().add(carry));
    if (count) out.add(i).store(s, count);
    else store(s, out.add(i));
    carry.set(s.lane(15));
  };
  i.set(start);
  If(i.lt(full), () => {
    gather(x.add(i).add(index()));
    While(i.add(16).lt(full), () => {
      receive(v);
      gather(x.add(i).add(16).add(index()));
      scan();
      i.set(i.add(16));
    });
    receive(v);
    scan();
    i.set(i.add(16));
  });
  v.set(x.add(i).load(end.sub(i)));
  scan(end.sub(i));
});

/** Bitonic sort of n ints in place (n a power of two, at least 32): a parallelFor a stage, a barrier between. */
export const bitonicSort = kernel([Int, Ptr(Int)], function bitonicSort(n, a) {
  const k = Int(2);
  While(k.le(n), () => {
    const j = Int(k.shr(1));
    While(j.gt(0), () => {
      If(j.ge(16), () => {
        // The pairs (i, i + j), bit j of i clear: 16 consecutive pairs are 16 consecutive i.
        parallelFor(n.shr(1), (p) => {
          const low = Int(p.and(j.sub(1)));
          const at = Int(p.sub(low).shl(1).add(low));
          const x = Int(a.add(at).load());
          const y = Int(a.add(at).add(j).load());
          const up = at.and(k).eq(0);
          a.add(at).store(select(up, x.min(y), x.max(y)));
          a.add(at).add(j).store(select(up, x.max(y), x.min(y)));
        });
        j.set(j.shr(1));
      }).Else(() => {
        // Every j below 16 inside each vector: the partner is 16 - j or j lanes round.
        parallelFor(n, (i) => {
          const x = Int(a.add(i).load());
          const d = Int(j);
          While(d.gt(0), () => {
            const lower = index().and(d).eq(0);
            const other = Int(select(lower, rotate(x, Int(16).sub(d)), rotate(x, d)));
            const least = lower.and(i.and(k).eq(0)).or(lower.not().and(i.and(k).ne(0)));
            x.set(select(least, x.min(other), x.max(other)));
            d.set(d.shr(1));
          });
          a.add(i).store(x);
        });
        j.set(0);
      });
      barrier();
    });
    k.set(k.shl(1));
  });
});
