// The CUDA driver API, loaded from libcuda.so.1 at run time so that one build of batchsim
// serves machines with and without an NVIDIA GPU. Declarations mirror cuda.h (CUDA 12/13)
// for the few calls batchsim makes; sizes are checked below against the real header's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace batchsim::device::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUexternalMemory = struct CUextMemory_st*;
using CUexternalSemaphore = struct CUextSemaphore_st*;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
inline constexpr int CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1;
inline constexpr int CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD = 9;
inline constexpr unsigned CUDA_EXTERNAL_MEMORY_DEDICATED = 0x1;

struct CUuuid {
    char bytes[16];
};

struct ExternalMemoryHandleDesc {  // CUDA_EXTERNAL_MEMORY_HANDLE_DESC
    int type;
    union {
        int fd;
        struct {
            void* handle;
            const void* name;
        } win32;
        const void* nvSciBufObject;
    } handle;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
};

struct ExternalMemoryBufferDesc {  // CUDA_EXTERNAL_MEMORY_BUFFER_DESC
    unsigned long long offset;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
};

struct ExternalSemaphoreHandleDesc {  // CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC
    int type;
    union {
        int fd;
        struct {
            void* handle;
            const void* name;
        } win32;
        const void* nvSciSyncObj;
    } handle;
    unsigned int flags;
    unsigned int reserved[16];
};

struct ExternalSemaphoreSignalParams {  // CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void* fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
        } keyedMutex;
        unsigned int reserved[12];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

struct ExternalSemaphoreWaitParams {  // CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void* fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
            unsigned int timeoutMs;
        } keyedMutex;
        unsigned int reserved[10];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

// Sizes measured with gcc against CUDA 13.0's cuda.h on x86-64 Linux.
static_assert(sizeof(ExternalMemoryHandleDesc) == 104);
static_assert(sizeof(ExternalMemoryBufferDesc) == 88);
static_assert(sizeof(ExternalSemaphoreHandleDesc) == 96);
static_assert(sizeof(ExternalSemaphoreSignalParams) == 144);
static_assert(sizeof(ExternalSemaphoreWaitParams) == 144);

// Entry points, looked up by their exported (versioned) symbol names.
struct Driver {
    CUresult (*cuInit)(unsigned int flags);
    CUresult (*cuDriverGetVersion)(int* version);
    CUresult (*cuGetErrorName)(CUresult error, const char** name);
    CUresult (*cuGetErrorString)(CUresult error, const char** text);
    CUresult (*cuDeviceGetCount)(int* count);
    CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
    CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
    CUresult (*cuDeviceGetUuid)(CUuuid* uuid, CUdevice device);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);  // _v2
    CUresult (*cuCtxPushCurrent)(CUcontext context);         // _v2
    CUresult (*cuCtxPopCurrent)(CUcontext* context);         // _v2
    CUresult (*cuCtxSynchronize)();
    CUresult (*cuMemFree)(CUdeviceptr pointer);                                          // _v2
    CUresult (*cuMemcpyDtoH)(void* destination, CUdeviceptr source, std::size_t bytes);  // _v2
    CUresult (*cuImportExternalMemory)(CUexternalMemory* out, const ExternalMemoryHandleDesc*);
    CUresult (*cuExternalMemoryGetMappedBuffer)(CUdeviceptr* out, CUexternalMemory,
                                                const ExternalMemoryBufferDesc*);
    CUresult (*cuDestroyExternalMemory)(CUexternalMemory memory);
    CUresult (*cuImportExternalSemaphore)(CUexternalSemaphore* out,
                                          const ExternalSemaphoreHandleDesc*);
    CUresult (*cuSignalExternalSemaphoresAsync)(const CUexternalSemaphore*,
                                                const ExternalSemaphoreSignalParams*,
                                                unsigned int count, CUstream stream);
    CUresult (*cuWaitExternalSemaphoresAsync)(const CUexternalSemaphore*,
                                              const ExternalSemaphoreWaitParams*,
                                              unsigned int count, CUstream stream);
    CUresult (*cuDestroyExternalSemaphore)(CUexternalSemaphore semaphore);
    CUresult (*cuEventSynchronize)(CUevent event);
    CUresult (*cuEventQuery)(CUevent event);
    int version = 0;  // e.g. 13000
};

// The driver, loaded and initialised on first use; nullptr when there is none, with the
// reason (library missing, no device, init error) in `why_not` when given.
const Driver* driver(std::string* why_not = nullptr);

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    std::uint8_t uuid[16]{};
};
std::vector<DeviceInfo> list_devices();  // empty without a driver

// Throws batchsim::Error(Cuda) naming the call, the CUDA error and the location.
void check(CUresult result, const char* expression, const char* file, int line);

}  // namespace batchsim::device::cuda

#define CU_CHECK(expression) \
    ::batchsim::device::cuda::check((expression), #expression, __FILE__, __LINE__)
