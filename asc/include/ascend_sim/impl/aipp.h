// ascend-sim (kernel_operator.h): the AIPP configuration SetAippFunctions records.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// AIPP (image pre-processing) configuration, as asc-devkit's kernel_struct_aipp.h. SetAippFunctions records it
// for LoadImageToLocal (not emulated yet) and checks what the docs state: the source tensor's element type T is the
// format's pixel type (uint8_t for all four formats), the output type U is uint8_t (no conversion), int8_t or
// half, YUV420SP takes its Y and UV planes as two GlobalTensors, paddingMode is in [0, 3] and cPaddingMode in
// [0, 1]. The configuration changes nothing else: DataCopy copies as always.
enum class AippInputFormat : uint8_t { YUV420SP_U8 = 0, XRGB8888_U8 = 1, RGB888_U8 = 4, YUV400_U8 = 9 };
template <typename T> struct AippPaddingParams {
    uint32_t paddingMode{0};
    T paddingValueCh0{0}, paddingValueCh1{0}, paddingValueCh2{0}, paddingValueCh3{0};
};
struct AippSwapParams { bool isSwapRB{false}, isSwapUV{false}, isSwapAX{false}; };
struct AippSingleLineParams { bool isSingleLineCopy{false}; };
struct AippDataTypeConvParams {
    uint8_t dtcMeanCh0{0}, dtcMeanCh1{0}, dtcMeanCh2{0};
    half dtcMinCh0{0.0f}, dtcMinCh1{0.0f}, dtcMinCh2{0.0f}, dtcVarCh0{1.0f}, dtcVarCh1{1.0f}, dtcVarCh2{1.0f};
    uint32_t dtcRoundMode{0};
};
template <typename T> struct AippChannelPaddingParams { uint32_t cPaddingMode; T cPaddingValue; };
struct AippColorSpaceConvParams {
    bool isEnableCsc{false};
    int16_t cscMatrixR0C0{0}, cscMatrixR0C1{0}, cscMatrixR0C2{0}, cscMatrixR1C0{0}, cscMatrixR1C1{0},
        cscMatrixR1C2{0}, cscMatrixR2C0{0}, cscMatrixR2C1{0}, cscMatrixR2C2{0};
    uint8_t cscBiasIn0{0}, cscBiasIn1{0}, cscBiasIn2{0}, cscBiasOut0{0}, cscBiasOut1{0}, cscBiasOut2{0};
};
template <typename T> struct AippParams {
    AippPaddingParams<T> paddingParams;
    AippSwapParams swapParams;
    AippSingleLineParams singleLineParams;
    AippDataTypeConvParams dtcParams;
    AippChannelPaddingParams<T> cPaddingParams;
    AippColorSpaceConvParams cscParams;
};

namespace detail {
inline const char* aipp_format_name(AippInputFormat f) {
    switch (f) {
        case AippInputFormat::YUV420SP_U8: return "YUV420SP_U8";
        case AippInputFormat::XRGB8888_U8: return "XRGB8888_U8";
        case AippInputFormat::RGB888_U8: return "RGB888_U8";
        case AippInputFormat::YUV400_U8: return "YUV400_U8";
    }
    return nullptr;
}
template <class T, class U>
inline void aipp_check(const char* api, int nsrc, AippInputFormat format, const AippParams<U>& config, int line) {
    ascend_sim::ctx(api, line);
    const char* fname = aipp_format_name(format);
    if (!fname) fail(api, line, "format " + str(uint64_t(format)) + " is not an AippInputFormat");
    if (!std::is_same<T, uint8_t>::value)
        fail(api, line, std::string("the source image is a GlobalTensor<") + type_name<T>::get() + ">: the template "
             "type T must be the pixel type of the format " + fname + ", uint8_t");
    static_assert(std::is_same<U, uint8_t>::value || std::is_same<U, int8_t>::value || std::is_same<U, half>::value,
                  "AippParams<U>: the output type U is uint8_t, int8_t or half");
    if (format == AippInputFormat::YUV420SP_U8 && nsrc != 2)
        fail(api, line, "YUV420SP_U8 takes two GlobalTensors, the Y plane (src0) and the UV plane (src1)");
    if (config.paddingParams.paddingMode > 3)
        fail(api, line, "paddingMode " + str(config.paddingParams.paddingMode) + " is outside [0, 3]");
    if (config.cPaddingParams.cPaddingMode > 1)
        fail(api, line, "cPaddingMode " + str(config.cPaddingParams.cPaddingMode) + " is outside [0, 1]");
}
}  // namespace detail

template <class T, class U>
inline void SetAippFunctions(const GlobalTensor<T>& src0, AippInputFormat format, AippParams<U> config,
                             int line = __builtin_LINE()) {
    (void)src0;
    detail::aipp_check<T, U>("SetAippFunctions", 1, format, config, line);
}
template <class T, class U>
inline void SetAippFunctions(const GlobalTensor<T>& src0, const GlobalTensor<T>& src1, AippInputFormat format,
                             AippParams<U> config, int line = __builtin_LINE()) {
    (void)src0; (void)src1;
    detail::aipp_check<T, U>("SetAippFunctions", 2, format, config, line);
}

}  // namespace AscendC
