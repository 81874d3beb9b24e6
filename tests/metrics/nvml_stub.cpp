// SPDX-License-Identifier: Apache-2.0
/* A stand-in for NVIDIA's management library (libnvidia-ml.so.1) with the symbols the platform
   metrics load, for tests on machines without a GPU (platform_test.cpp). One GPU, index 0, at
   PCI bus id 0000:01:00.0. Its energy counter goes up 1000 mJ per read; power is 50 W,
   utilisation 40 %, SM clock 1410 MHz, temperature 55 C. NEUROBENCH_NVML_STUB_NO_ENERGY=1 makes
   the energy counter Not Supported (as on GPUs older than Volta), NEUROBENCH_NVML_STUB_INIT_FAILS=1
   makes nvmlInit_v2 fail as without a driver. */
#include <cstdlib>
#include <cstring>

extern "C" {

#define STUB_SUCCESS 0
#define STUB_ERROR_UNINITIALIZED 1
#define STUB_ERROR_INVALID_ARGUMENT 2
#define STUB_ERROR_NOT_SUPPORTED 3
#define STUB_ERROR_DRIVER_NOT_LOADED 9

typedef struct {
  unsigned int gpu;
  unsigned int memory;
} stub_utilization;

static int stub_initialised = 0;
static unsigned long long stub_energy_mj = 5000000ULL;
static int stub_device = 1; /* the handle points here */

static int stub_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

int nvmlInit_v2(void) {
  if (stub_flag("NEUROBENCH_NVML_STUB_INIT_FAILS")) return STUB_ERROR_DRIVER_NOT_LOADED;
  ++stub_initialised;
  return STUB_SUCCESS;
}

int nvmlShutdown(void) {
  if (stub_initialised == 0) return STUB_ERROR_UNINITIALIZED;
  --stub_initialised;
  return STUB_SUCCESS;
}

const char* nvmlErrorString(int code) {
  switch (code) {
    case STUB_SUCCESS:
      return "Success";
    case STUB_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case STUB_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case STUB_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case STUB_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (stub_initialised == 0) return STUB_ERROR_UNINITIALIZED;
  if (index != 0 || device == nullptr) return STUB_ERROR_INVALID_ARGUMENT;
  *device = &stub_device;
  return STUB_SUCCESS;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (stub_initialised == 0) return STUB_ERROR_UNINITIALIZED;
  if (bus_id == nullptr || device == nullptr || std::strcmp(bus_id, "0000:01:00.0") != 0) {
    return STUB_ERROR_INVALID_ARGUMENT;
  }
  *device = &stub_device;
  return STUB_SUCCESS;
}

static int stub_check(void* device) {
  if (stub_initialised == 0) return STUB_ERROR_UNINITIALIZED;
  return device == &stub_device ? STUB_SUCCESS : STUB_ERROR_INVALID_ARGUMENT;
}

int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* mj) {
  const int rc = stub_check(device);
  if (rc != STUB_SUCCESS) return rc;
  if (stub_flag("NEUROBENCH_NVML_STUB_NO_ENERGY")) return STUB_ERROR_NOT_SUPPORTED;
  stub_energy_mj += 1000;
  *mj = stub_energy_mj;
  return STUB_SUCCESS;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned int* mw) {
  const int rc = stub_check(device);
  if (rc != STUB_SUCCESS) return rc;
  *mw = 50000;
  return STUB_SUCCESS;
}

int nvmlDeviceGetUtilizationRates(void* device, stub_utilization* u) {
  const int rc = stub_check(device);
  if (rc != STUB_SUCCESS) return rc;
  u->gpu = 40;
  u->memory = 10;
  return STUB_SUCCESS;
}

int nvmlDeviceGetClockInfo(void* device, int type, unsigned int* mhz) {
  const int rc = stub_check(device);
  if (rc != STUB_SUCCESS) return rc;
  if (type != 1) return STUB_ERROR_INVALID_ARGUMENT; /* NVML_CLOCK_SM */
  *mhz = 1410;
  return STUB_SUCCESS;
}

int nvmlDeviceGetTemperature(void* device, int sensor, unsigned int* c) {
  const int rc = stub_check(device);
  if (rc != STUB_SUCCESS) return rc;
  if (sensor != 0) return STUB_ERROR_INVALID_ARGUMENT; /* NVML_TEMPERATURE_GPU */
  *c = 55;
  return STUB_SUCCESS;
}

}  // extern "C"
