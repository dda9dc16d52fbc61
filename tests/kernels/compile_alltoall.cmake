# Compile kernels/alltoall.cu with nvcc against the nccl.h in NCCL_INCLUDE and check whether the
# object references ncclAlltoAll: it must (weakly) with NCCL >= 2.28 headers (EXPECT_ALLTOALL=ON)
# and must not with older ones (the tests/kernels/nccl_2_27 stand-in header), where only the
# grouped send/recv path exists. Run by the kernels.alltoall_* CTests (tests/kernels).
# Variables: NVCC, SOURCE_DIR, NCCL_INCLUDE, OUTPUT, NM, EXPECT_ALLTOALL.
execute_process(
  COMMAND ${NVCC} -std=c++17 -arch=sm_80 -c ${SOURCE_DIR}/kernels/alltoall.cu
          -I${NCCL_INCLUDE} -I${SOURCE_DIR}/kernels -I${SOURCE_DIR}/src/sim -o ${OUTPUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "alltoall.cu does not compile against ${NCCL_INCLUDE}/nccl.h:\n${out}${err}")
endif()
execute_process(COMMAND ${NM} ${OUTPUT} RESULT_VARIABLE rc OUTPUT_VARIABLE symbols)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm ${OUTPUT} failed")
endif()
string(FIND "${symbols}" "ncclAlltoAll" at)
if(EXPECT_ALLTOALL AND at EQUAL -1)
  message(FATAL_ERROR "built against ${NCCL_INCLUDE}/nccl.h (NCCL >= 2.28) without ncclAlltoAll")
elseif(NOT EXPECT_ALLTOALL AND NOT at EQUAL -1)
  message(FATAL_ERROR "references ncclAlltoAll although ${NCCL_INCLUDE}/nccl.h lacks it")
endif()
if(NOT symbols MATCHES "ncclSend")
  message(FATAL_ERROR "no grouped send/recv path in the object")
endif()
message(STATUS "alltoall.cu builds against ${NCCL_INCLUDE}/nccl.h")
