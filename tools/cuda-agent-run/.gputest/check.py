import numpy as np, json, sys
g = sys.argv[1]
a = np.load(g+'/b/out/arg0.npy'); r0 = np.load(g+'/b/out/res0.npy'); r1 = np.load(g+'/b/out/res1.npy')
print('b: arg0', a.dtype, a.shape, 'mean %.3f std %.3f' % (a.mean(), a.std()), 'res0 ok', np.array_equal(r0, 2*a+1), 'res1', r1.dtype, 'bf16 ok', np.array_equal(r1, (a.view(np.uint32) >> 16).astype(np.uint16)))
h = np.load(g+'/mixed/out/h.npy'); k = np.load(g+'/mixed/out/k.npy'); o = np.load(g+'/mixed/out/o.npy')
print('mixed:', h.dtype, k.dtype, 'k range', k.min(), k.max(), 'h std %.3f' % h.astype(np.float32).std(), 'ok', np.array_equal(o, h.astype(np.float32) + k))
