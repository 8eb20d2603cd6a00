// Ascend C translated by asc from the pyasc kernel 'vadd_auto' (pyasc_kernels.py:200)
// specialized on: x: float16, y: float16, z: float16, block_length=512, tile=128
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void vadd_auto(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    // the Unified Buffer of the LocalTensorAuto tensors, one TBuf each (insert_sync)
    AscendC::TPipe asc_pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> asc_auto_buf_0;
    asc_pipe.InitBuffer(asc_auto_buf_0, 256);
    AscendC::TBuf<AscendC::TPosition::VECCALC> asc_auto_buf_1;
    asc_pipe.InitBuffer(asc_auto_buf_1, 256);
    AscendC::TBuf<AscendC::TPosition::VECCALC> asc_auto_buf_2;
    asc_pipe.InitBuffer(asc_auto_buf_2, 256);
    // off = asc.get_block_idx() * block_length
#line 205 "pyasc_kernels.py"
    int64_t off = (AscendC::GetBlockIdx() * 512);
    // xg = asc.GlobalTensor()
#line 206 "pyasc_kernels.py"
    AscendC::GlobalTensor<half> xg;
    // yg = asc.GlobalTensor()
#line 207 "pyasc_kernels.py"
    AscendC::GlobalTensor<half> yg;
    // zg = asc.GlobalTensor()
#line 208 "pyasc_kernels.py"
    AscendC::GlobalTensor<half> zg;
    // xg.set_global_buffer(x + off)
#line 209 "pyasc_kernels.py"
    xg.SetGlobalBuffer((((__gm__ half*)x) + off));
    // yg.set_global_buffer(y + off)
#line 210 "pyasc_kernels.py"
    yg.SetGlobalBuffer((((__gm__ half*)y) + off));
    // zg.set_global_buffer(z + off)
#line 211 "pyasc_kernels.py"
    zg.SetGlobalBuffer((((__gm__ half*)z) + off));
    // for i in asc.range(block_length // tile):
#line 212 "pyasc_kernels.py"
    for (int64_t i = 0; i < 4; ++i) {
        // a = asc.LocalTensorAuto(x.dtype, tile)
#line 213 "pyasc_kernels.py"
        AscendC::LocalTensor<half> a = asc_auto_buf_0.Get<half>();
        // b = asc.LocalTensorAuto(y.dtype, tile)
#line 214 "pyasc_kernels.py"
        AscendC::LocalTensor<half> b = asc_auto_buf_1.Get<half>();
        // c = asc.LocalTensorAuto(z.dtype, tile)
#line 215 "pyasc_kernels.py"
        AscendC::LocalTensor<half> c = asc_auto_buf_2.Get<half>();
        // asc.data_copy(a, xg[i * tile:], count=tile)
#line 216 "pyasc_kernels.py"
        AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0); AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0); AscendC::DataCopy(a, xg[(i * 128)], 128);
        // asc.data_copy(b, yg[i * tile:], count=tile)
#line 217 "pyasc_kernels.py"
        AscendC::DataCopy(b, yg[(i * 128)], 128);
        // first = a.get_value(0)
#line 218 "pyasc_kernels.py"
        AscendC::SetFlag<AscendC::HardEvent::MTE2_S>(0); AscendC::WaitFlag<AscendC::HardEvent::MTE2_S>(0); half first = a.GetValue(0);
        // asc.adds(c, b, first, tile)
#line 219 "pyasc_kernels.py"
        AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(0); AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0); AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0); AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0); AscendC::Adds(c, b, first, 128);
        // asc.add(c, c, a, tile)
#line 220 "pyasc_kernels.py"
        AscendC::Add(c, c, a, 128);
        // asc.data_copy(zg[i * tile:], c, count=tile)
#line 221 "pyasc_kernels.py"
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0); AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0); AscendC::DataCopy(zg[(i * 128)], c, 128);
    }
}
