#include "device/cuda_driver.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <mutex>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::device::cuda {
namespace {

struct Loaded {
    Driver driver{};
    bool ok = false;
    std::string why_not;
};

template <typename Function>
bool resolve(void* library, const char* symbol, Function& out, std::string& why_not) {
    out = reinterpret_cast<Function>(dlsym(library, symbol));
    if (!out && why_not.empty()) why_not = str("libcuda.so.1 lacks ", symbol);
    return out != nullptr;
}

bool resolve_all(void* lib, Driver& d, std::string& why) {
    bool ok = true;
    ok &= resolve(lib, "cuInit", d.cuInit, why);
    ok &= resolve(lib, "cuDriverGetVersion", d.cuDriverGetVersion, why);
    ok &= resolve(lib, "cuGetErrorName", d.cuGetErrorName, why);
    ok &= resolve(lib, "cuGetErrorString", d.cuGetErrorString, why);
    ok &= resolve(lib, "cuDeviceGetCount", d.cuDeviceGetCount, why);
    ok &= resolve(lib, "cuDeviceGet", d.cuDeviceGet, why);
    ok &= resolve(lib, "cuDeviceGetName", d.cuDeviceGetName, why);
    // The physical GPU's UUID, which is what Vulkan's deviceUUID reports.
    ok &= resolve(lib, "cuDeviceGetUuid", d.cuDeviceGetUuid, why);
    ok &= resolve(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, why);
    ok &= resolve(lib, "cuDevicePrimaryCtxRelease_v2", d.cuDevicePrimaryCtxRelease, why);
    ok &= resolve(lib, "cuCtxPushCurrent_v2", d.cuCtxPushCurrent, why);
    ok &= resolve(lib, "cuCtxPopCurrent_v2", d.cuCtxPopCurrent, why);
    ok &= resolve(lib, "cuCtxSynchronize", d.cuCtxSynchronize, why);
    ok &= resolve(lib, "cuMemFree_v2", d.cuMemFree, why);
    ok &= resolve(lib, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, why);
    ok &= resolve(lib, "cuImportExternalMemory", d.cuImportExternalMemory, why);
    ok &= resolve(lib, "cuExternalMemoryGetMappedBuffer", d.cuExternalMemoryGetMappedBuffer, why);
    ok &= resolve(lib, "cuDestroyExternalMemory", d.cuDestroyExternalMemory, why);
    ok &= resolve(lib, "cuImportExternalSemaphore", d.cuImportExternalSemaphore, why);
    ok &= resolve(lib, "cuSignalExternalSemaphoresAsync", d.cuSignalExternalSemaphoresAsync, why);
    ok &= resolve(lib, "cuWaitExternalSemaphoresAsync", d.cuWaitExternalSemaphoresAsync, why);
    ok &= resolve(lib, "cuDestroyExternalSemaphore", d.cuDestroyExternalSemaphore, why);
    ok &= resolve(lib, "cuEventSynchronize", d.cuEventSynchronize, why);
    ok &= resolve(lib, "cuEventQuery", d.cuEventQuery, why);
    return ok;
}

Loaded load() {
    Loaded loaded;
    // Never unloaded: CUDA objects may be released during interpreter shutdown.
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        loaded.why_not = "the NVIDIA driver library libcuda.so.1 is not installed";
        return loaded;
    }
    if (!resolve_all(library, loaded.driver, loaded.why_not)) return loaded;
    const CUresult init = loaded.driver.cuInit(0);
    if (init != CUDA_SUCCESS) {
        const char* name = nullptr;
        loaded.driver.cuGetErrorName(init, &name);
        loaded.why_not =
            str("cuInit failed with ", name ? name : "an unknown error", " (", init, ")");
        return loaded;
    }
    loaded.driver.cuDriverGetVersion(&loaded.driver.version);
    loaded.ok = true;
    return loaded;
}

}  // namespace

const Driver* driver(std::string* why_not) {
    static const Loaded loaded = load();  // thread-safe one-time initialisation
    if (!loaded.ok && why_not) *why_not = loaded.why_not;
    return loaded.ok ? &loaded.driver : nullptr;
}

std::vector<DeviceInfo> list_devices() {
    std::vector<DeviceInfo> devices;
    const Driver* d = driver();
    int count = 0;
    if (!d || d->cuDeviceGetCount(&count) != CUDA_SUCCESS) return devices;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        CUdevice device = 0;
        CU_CHECK(d->cuDeviceGet(&device, ordinal));
        char name[256] = {};
        CU_CHECK(d->cuDeviceGetName(name, sizeof name, device));
        CUuuid uuid{};
        CU_CHECK(d->cuDeviceGetUuid(&uuid, device));
        DeviceInfo info;
        info.ordinal = ordinal;
        info.name = name;
        std::memcpy(info.uuid, uuid.bytes, sizeof info.uuid);
        devices.push_back(info);
    }
    return devices;
}

void check(CUresult result, const char* expression, const char* file, int line) {
    if (result == CUDA_SUCCESS) [[likely]]
        return;
    const char* name = nullptr;
    const char* text = nullptr;
    if (const Driver* d = driver()) {
        d->cuGetErrorName(result, &name);
        d->cuGetErrorString(result, &text);
    }
    throw Error(Error::Kind::Cuda,
                str("CUDA call failed with ", name ? name : "an unknown error", " (", result, ": ",
                    text ? text : "no description", "): ", expression, " at ",
                    std::filesystem::path(file).filename().string(), ":", line));
}

}  // namespace batchsim::device::cuda
