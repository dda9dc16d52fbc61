// A small NCCL topology dump (ncclTopoDump XML) with the NIC count and speed left open, shared by
// the probes tests (parsing) and the preflight tests (topology findings).
#pragma once

#include <string>

namespace hcp {

inline constexpr const char* kNcclDump = R"(<system version="1">
  <cpu numaid="0" affinity="0000ffff">
    <pci busid="0000:0a:00.0" class="0x060400">
      <pci busid="0000:0b:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1"><nvlink target="0000:0c:00.0" count="%COUNT%" tclass="0x030200"/></gpu>
      </pci>
      <pci busid="0000:0c:00.0" class="0x030200" vendor="0x10de" device="0x2330">
        <gpu dev="1" sm="90" rank="1" gdr="1"><nvlink target="0000:0b:00.0" count="6" tclass="0x030200"/></gpu>
      </pci>
      <pci busid="0000:0d:00.0" class="0x020700" vendor="0x15b3">
        <nic><net name="mlx5_0" dev="0" speed="%SPEED%" port="1" gdr="1"/></nic>
      </pci>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="ffff0000">
    <pci busid="0000:8d:00.0" class="0x020700" vendor="0x15b3">
      <nic><net name="mlx5_1" dev="1" speed="400000" port="1" gdr="1"/></nic>
    </pci>
  </cpu>
</system>
)";

inline std::string nccl_dump(const std::string& count, const std::string& speed) {
  std::string s = kNcclDump;
  s.replace(s.find("%COUNT%"), 7, count);
  s.replace(s.find("%SPEED%"), 7, speed);
  return s;
}

}  // namespace hcp
