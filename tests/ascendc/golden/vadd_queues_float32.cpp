// Ascend C translated by asc from the pyasc kernel 'vadd_queues' (pyasc_kernels.py:163)
// specialized on: x: float32, y: float32, z: float32, block_length=512, tile=128
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void vadd_queues(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    // off = asc.get_block_idx() * block_length
#line 167 "pyasc_kernels.py"
    int64_t off = (AscendC::GetBlockIdx() * 512);
    // xg = asc.GlobalTensor()
#line 168 "pyasc_kernels.py"
    AscendC::GlobalTensor<float> xg;
    // yg = asc.GlobalTensor()
#line 169 "pyasc_kernels.py"
    AscendC::GlobalTensor<float> yg;
    // zg = asc.GlobalTensor()
#line 170 "pyasc_kernels.py"
    AscendC::GlobalTensor<float> zg;
    // xg.set_global_buffer(x + off, block_length)
#line 171 "pyasc_kernels.py"
    xg.SetGlobalBuffer((((__gm__ float*)x) + off), 512);
    // yg.set_global_buffer(y + off, block_length)
#line 172 "pyasc_kernels.py"
    yg.SetGlobalBuffer((((__gm__ float*)y) + off), 512);
    // zg.set_global_buffer(z + off, block_length)
#line 173 "pyasc_kernels.py"
    zg.SetGlobalBuffer((((__gm__ float*)z) + off), 512);
    // pipe = asc.TPipe()
#line 174 "pyasc_kernels.py"
    AscendC::TPipe pipe;
    // qx = asc.TQue(asc.TPosition.VECIN, 2)
#line 175 "pyasc_kernels.py"
    AscendC::TQue<AscendC::TPosition::VECIN, 2> qx;
    // qy = asc.TQue(asc.TPosition.VECIN, 2)
#line 176 "pyasc_kernels.py"
    AscendC::TQue<AscendC::TPosition::VECIN, 2> qy;
    // qz = asc.TQue(asc.TPosition.VECOUT, 2)
#line 177 "pyasc_kernels.py"
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> qz;
    // pipe.init_buffer(qx, 2, tile * x.dtype.sizeof())
#line 178 "pyasc_kernels.py"
    pipe.InitBuffer(qx, 2, 512);
    // pipe.init_buffer(qy, 2, tile * y.dtype.sizeof())
#line 179 "pyasc_kernels.py"
    pipe.InitBuffer(qy, 2, 512);
    // pipe.init_buffer(qz, 2, tile * z.dtype.sizeof())
#line 180 "pyasc_kernels.py"
    pipe.InitBuffer(qz, 2, 512);
    // for i in range(block_length // tile):
#line 181 "pyasc_kernels.py"
    for (int64_t i = 0; i < 4; ++i) {
        // a = qx.alloc_tensor(x.dtype)
#line 182 "pyasc_kernels.py"
        AscendC::LocalTensor<float> a = qx.AllocTensor<float>();
        // b = qy.alloc_tensor(y.dtype)
#line 183 "pyasc_kernels.py"
        AscendC::LocalTensor<float> b = qy.AllocTensor<float>();
        // asc.data_copy(a, xg[i * tile:], tile)
#line 184 "pyasc_kernels.py"
        AscendC::DataCopy(a, xg[(i * 128)], 128);
        // asc.data_copy(b, yg[i * tile:], tile)
#line 185 "pyasc_kernels.py"
        AscendC::DataCopy(b, yg[(i * 128)], 128);
        // qx.enque(a)
#line 186 "pyasc_kernels.py"
        qx.EnQue(a);
        // qy.enque(b)
#line 187 "pyasc_kernels.py"
        qy.EnQue(b);
        // a = qx.deque(x.dtype)
#line 188 "pyasc_kernels.py"
        a = qx.DeQue<float>();
        // b = qy.deque(y.dtype)
#line 189 "pyasc_kernels.py"
        b = qy.DeQue<float>();
        // c = qz.alloc_tensor(z.dtype)
#line 190 "pyasc_kernels.py"
        AscendC::LocalTensor<float> c = qz.AllocTensor<float>();
        // asc.add(c, a, b, tile)
#line 191 "pyasc_kernels.py"
        AscendC::Add(c, a, b, 128);
        // qz.enque(c)
#line 192 "pyasc_kernels.py"
        qz.EnQue(c);
        // qx.free_tensor(a)
#line 193 "pyasc_kernels.py"
        qx.FreeTensor(a);
        // qy.free_tensor(b)
#line 194 "pyasc_kernels.py"
        qy.FreeTensor(b);
        // c = qz.deque(z.dtype)
#line 195 "pyasc_kernels.py"
        c = qz.DeQue<float>();
        // asc.data_copy(zg[i * tile:], c, tile)
#line 196 "pyasc_kernels.py"
        AscendC::DataCopy(zg[(i * 128)], c, 128);
        // qz.free_tensor(c)
#line 197 "pyasc_kernels.py"
        qz.FreeTensor(c);
    }
}
